/**
 * Which engine runs which language. Each language is one folder of
 * src/engines/ whose module named here exports `createEngine()`; it is
 * imported the first time a job in that language arrives, so a worker
 * loads only the languages it runs (Python's Pyodide is large).
 */
import type { CandidateJob, CandidateOutcome, Language } from '../sandbox-host/protocol.js';
import type { Engine } from './engine.js';

const LANGUAGES: Record<Language, () => Promise<{ createEngine(): Engine }>> = {
  javascript: () => import('./javascript/engine.js'),
  python: () => import('./python/bridge.js'),
};

/** A worker's engines, one per language, each started when first needed. */
export class Engines {
  private readonly started = new Map<Language, Engine>();
  private readonly starting = new Map<Language, Promise<Engine>>();

  /**
   * @param eager languages whose engines `warm` starts before any job asks
   *   for them (so that the first candidate does not pay for the start).
   */
  constructor(private readonly eager: readonly Language[] = []) {}

  async run(job: CandidateJob): Promise<CandidateOutcome> {
    const engine = this.started.get(job.language) ?? (await this.start(job.language));
    return engine.run(job);
  }

  /** Gets every started (or eager) engine ready for its next candidate; a failure is left for that candidate to meet. */
  async warm(memoryMb: number): Promise<void> {
    for (const language of this.eager) {
      if (!this.started.has(language)) await this.start(language).catch(() => undefined);
    }
    for (const engine of this.started.values()) {
      try {
        await engine.warm(memoryMb);
      } catch {
        // The next job in that language meets the same failure and reports it with its candidate.
      }
    }
  }

  dispose(): void {
    for (const engine of this.started.values()) engine.dispose();
    this.started.clear();
  }

  private start(language: Language): Promise<Engine> {
    let starting = this.starting.get(language);
    if (starting === undefined) {
      const load = LANGUAGES[language];
      if (load === undefined) return Promise.reject(new Error(`evalrun: no engine runs ${String(language)}`));
      starting = load().then((module) => {
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
