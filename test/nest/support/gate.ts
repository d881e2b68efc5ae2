/**
 * A gate a test closes to hold async work at an exact point (a journal write,
 * an admission step) and opens to let it go on. Open by default.
 */
export class Gate {
  private isOpen = true;
  private readonly waiters: Array<() => void> = [];

  /** How many callers wait at the closed gate now. */
  get waiting(): number {
    return this.waiters.length;
  }

  close(): void {
    this.isOpen = false;
  }

  open(): void {
    this.isOpen = true;
    for (const release of this.waiters.splice(0)) release();
  }

  /** Resolves at once while open, else when the gate opens. */
  pass(): Promise<void> {
    if (this.isOpen) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
