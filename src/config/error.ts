/**
 * A bad or unsafe configuration: each problem names the variable, never its value. One error
 * carries every problem found, so an operator fixes them all in one go instead of one per start.
 */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : [...problems];
    super(
      list.length === 1
        ? (list[0] ?? '')
        : `${list.length} configuration problems:\n${list.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
    this.problems = list;
  }
}

/**
 * Collects problems instead of stopping at the first: `take(() => parse(...), fallback)` returns
 * the parsed value, or records the ConfigError's problems and returns the fallback so parsing goes
 * on. `throwIfAny()` then throws one ConfigError listing them all.
 */
export class ConfigProblems {
  readonly #problems: string[] = [];

  take<T>(parse: () => T, fallback: T): T {
    try {
      return parse();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      this.#problems.push(...err.problems);
      return fallback;
    }
  }

  add(problem: string): void {
    this.#problems.push(problem);
  }

  get count(): number {
    return this.#problems.length;
  }

  throwIfAny(): void {
    if (this.#problems.length > 0) throw new ConfigError(this.#problems);
  }
}
