// A one-line progress bar on a terminal; silent when stderr is not a TTY (logs, pipes, CI).
export class ProgressBar {
  private last = -1;

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  get enabled(): boolean {
    return Boolean(this.stream.isTTY);
  }

  /** fraction in 0..1; detail is shown after the percentage (e.g. "12.3/75.0 MB"). */
  update(fraction: number, detail = ''): void {
    if (!this.enabled) return;
    const percent = Math.max(0, Math.min(100, Math.floor(fraction * 100)));
    if (percent === this.last && !detail) return;
    this.last = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    this.stream.write(`\r${this.label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(percent).padStart(3)}% ${detail}`);
  }

  done(): void {
    if (this.enabled && this.last >= 0) this.stream.write('\n');
    this.last = -1;
  }
}
