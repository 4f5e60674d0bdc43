// Words for geography: street types (what makes "42 Oak Street" an address), the states and countries a
// transcript keeps (Safe Harbor removes only units smaller than a state), and the phrases before a place
// someone lives in or comes from, per family. Folded as textWords folds words.
import { fold } from './spoken-numbers.js';

const words = (...lines: string[]) => new Set(lines.flatMap((line) => line.split(' ')).map(fold));

export const STREET_TYPES = words(
  'street st avenue ave road rd boulevard blvd lane ln drive dr court ct way place pl terrace circle cir highway hwy',
  'parkway pkwy trail square sq close crescent row alley plaza loop pike',
);

/** After the street: "Apartment 4B", "Suite 300". */
export const UNIT_WORDS = words('apartment apt unit suite ste flat room floor');

export const US_STATES = words(
  'alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho illinois indiana iowa kansas',
  'kentucky louisiana maine maryland massachusetts michigan minnesota mississippi missouri montana nebraska nevada ohio oklahoma oregon',
  'pennsylvania tennessee texas utah vermont virginia washington wisconsin wyoming',
);
/** Two-letter state codes, written in capitals ("Boston, MA 02115"). */
export const STATE_CODES = new Set(
  [
    'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC',
    'ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC',
  ]
    .join(' ')
    .split(' '),
);
/** Larger than a state: kept. Multi-word states ("New York") are kept by their last word's not being a place alone. */
export const KEPT_REGIONS = words(
  'america usa us canada mexico england scotland wales ireland britain uk france germany spain portugal italy netherlands holland belgium',
  'switzerland austria brazil argentina colombia peru chile venezuela cuba india pakistan bangladesh china japan korea vietnam philippines',
  'egypt morocco algeria tunisia nigeria kenya ethiopia ghana somalia sudan syria lebanon jordan iraq iran israel palestine turkey saudi arabia',
  'emirates qatar kuwait yemen russia ukraine poland romania greece europe africa asia haiti jamaica guatemala honduras salvador nicaragua',
  'dominican puerto rico ecuador bolivia uruguay paraguay australia zealand nepal sri lanka',
);

/** Phrases a place follows: where someone lives, comes from, was born, moved to. */
export const PLACE_CUES = [
  'live in',
  'lives in',
  'living in',
  'lived in',
  'live near',
  'moved to',
  'moved from',
  'born in',
  'grew up in',
  'reside in',
  'resides in',
  'staying in',
  'i am from',
  "i'm from",
  'is from',
  'are from',
  'comes from',
  'visiting from',
  'home in',
  'town of',
  'city of',
  'vivo en',
  'vive en',
  'soy de',
  'nací en',
  'moro em',
  'mora em',
  'vivo em',
  'sou de',
  'nasci em',
  "j'habite à",
  "j'habite a",
  'je vis à',
  'je suis de',
  'né à',
  'née à',
  'ich wohne in',
  'wohnt in',
  'ich lebe in',
  'ich komme aus',
  'geboren in',
  'ik woon in',
  'woont in',
  'ik kom uit',
  'أسكن في',
  'أعيش في',
  'يسكن في',
  'تسكن في',
  // Arabic joins "and" to the next word: "وأسكن في".
  'وأسكن في',
  'وأعيش في',
  'ويسكن في',
  'وتسكن في',
];

/** Streets named before their number outside English: "Calle Mayor 12", "Rua Augusta, 45", "12 rue de la Paix". */
export const STREET_BEFORE = 'calle|avenida|av\\.|rua|travessa|carrer|paseo|plaza|praça|rue|avenue|boulevard|bd|chemin|allée|impasse|quai|place';
export const NAME_PARTICLES = 'de|del|la|las|los|da|do|dos|das|du|des|le|les|van|der|den|von|am|an';
/** German and Dutch compounds: "Hauptstraße 5", "Kerkstraat 12". */
export const STREET_SUFFIXES = 'straße|strasse|str\\.|weg|gasse|allee|platz|ring|damm|straat|laan|plein|gracht|kade|singel';
