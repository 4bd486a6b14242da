/** What an {@link ActiveSampler} saw. */
export interface ActiveSamples {
  readonly samples: number;
  readonly max: number;
}

/** A background loop sampling the active count; {@link stop} returns what it saw. */
export class ActiveSampler {
  #samples = 0;
  #max = 0;
  #stopped = false;
  #error: unknown = null;
  readonly #loop: Promise<void>;

  constructor(read: () => Promise<number>, intervalMs: number) {
    this.#loop = (async () => {
      while (!this.#stopped) {
        try {
          const active = await read();
          this.#samples += 1;
          this.#max = Math.max(this.#max, active);
        } catch (error) {
          this.#error = error;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    })();
  }

  /** The highest count seen so far. */
  get max(): number {
    return this.#max;
  }

  /** Ends the loop; throws when a sample failed (a broken observer must not look like "never above 8"). */
  async stop(): Promise<ActiveSamples> {
    this.#stopped = true;
    await this.#loop;
    if (this.#error !== null) throw this.#error;
    return { samples: this.#samples, max: this.#max };
  }
}
