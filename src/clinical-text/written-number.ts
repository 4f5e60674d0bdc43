// How the formatter writes a number (the medication-safety rules of the Joint Commission's "Do Not
// Use" list and ISMP): never a trailing zero ("5 mg", not "5.0 mg", which reads as 50), always a
// leading zero ("0.5 mg", not ".5 mg", which reads as 5), and a comma between thousands from 1,000
// up (ISMP: "1,000 units", never "1000 units", which is misread by a factor of ten). Years, clock
// times and days of the month are written without separators by their own rules.

/** `value`: digits with an optional fraction ("0050.250"), as a spoken or written number gives them. */
export function writtenNumber(value: string): string {
  const [whole, fraction = ''] = value.split('.');
  const w = whole.replace(/^0+(?=\d)/, '') || '0';
  const f = fraction.replace(/0+$/, '');
  const grouped = w.length >= 4 ? w.replace(/\B(?=(\d{3})+$)/g, ',') : w;
  return f ? `${grouped}.${f}` : grouped;
}
