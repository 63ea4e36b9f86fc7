/**
 * A worker's engines. Each language's engine comes from its descriptor
 * (languages.ts): a cheap one (`eager`) starts before the first job, the
 * others with the first job in their language, so that a worker loads only
 * the languages it runs (Python's Pyodide is large).
 */
import { DEFAULTS } from '../defaults.js';
import type { CandidateJob, CandidateOutcome, StopAfter } from '../sandbox-host/protocol.js';
import type { Engine } from './engine.js';
import { allLanguages, languageNamed } from './find-language.js';

/** A worker's engines, one per language, each started when first needed. */
export class Engines {
  private readonly started = new Map<string, Engine>();
  private readonly starting = new Map<string, Promise<Engine>>();
  /**
   * The heap limit the last job in each language asked for: what its engine
   * prepares the next sandbox with. Before any job, the CLI's default.
   */
  private readonly memoryMb = new Map<string, number>();

  /**
   * @param eager languages whose engines `warm` starts before any job asks
   *   for them (so that the first candidate does not pay for the start):
   *   those whose descriptors say so.
   */
  constructor(
    private readonly eager: readonly string[] = allLanguages()
      .filter((l) => l.eager)
      .map((l) => l.name),
  ) {}

  async run(job: CandidateJob, stop?: StopAfter): Promise<CandidateOutcome> {
    this.memoryMb.set(job.language, job.limits.memoryMb);
    const engine = this.started.get(job.language) ?? (await this.start(job.language));
    return engine.run(job, stop);
  }

  /**
   * Starts these languages' engines and readies their sandboxes now, for
   * jobs with this heap limit (a long-lived worker, before its first job);
   * why any could not start, one line each. A job meets the same failure
   * again and reports it with its candidate.
   */
  async prepare(languages: readonly string[], memoryMb: number): Promise<string[]> {
    const errors: string[] = [];
    for (const language of languages) {
      try {
        this.memoryMb.set(language, memoryMb);
        const engine = this.started.get(language) ?? (await this.start(language));
        await (engine.prepare === undefined ? engine.warm(memoryMb) : engine.prepare(memoryMb));
      } catch (e) {
        errors.push(`${language}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return errors;
  }

  /** Gets every started (or eager) engine ready for its next candidate; a failure is left for that candidate to meet. */
  async warm(): Promise<void> {
    for (const language of this.eager) {
      if (!this.started.has(language)) await this.start(language).catch(() => undefined);
    }
    for (const [language, engine] of this.started) {
      try {
        await engine.warm(this.memoryMb.get(language) ?? DEFAULTS.memoryMb);
      } catch {
        // The next job in that language meets the same failure and reports it with its candidate.
      }
    }
  }

  dispose(): void {
    for (const engine of this.started.values()) engine.dispose();
    this.started.clear();
  }

  private start(language: string): Promise<Engine> {
    let starting = this.starting.get(language);
    if (starting === undefined) {
      const descriptor = languageNamed(language);
      if (descriptor === undefined) return Promise.reject(new Error(`evalrun: no engine runs ${language}`));
      starting = descriptor.loadEngine().then((module) => {
        const engine = module.createEngine();
        this.started.set(language, engine);
        return engine;
      });
      starting.catch(() => this.starting.delete(language));
      this.starting.set(language, starting);
    }
    return starting;
  }
}
