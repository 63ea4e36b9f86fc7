/**
 * JavaScript's language descriptor (../descriptor.ts): what the rest of
 * evalrun knows of JavaScript and its dialect TypeScript, whose types are
 * stripped before it runs (prepare.ts). The engine (engine.ts: a fresh
 * context per candidate in an isolate, sandbox/harness.js inside) is cheap
 * to start, so a worker starts it before its first job.
 *
 * Both `import()`s here are lazy on purpose: the supervisor never loads the
 * engine, and a worker never loads `prepare` (scripts/bundle.ts leaves each
 * out of the other's program).
 */
import { defineLanguage } from '../descriptor.js';

export const javascript = defineLanguage({
  name: 'javascript',
  dialects: [
    {
      name: 'javascript',
      aliases: ['js', 'node', 'nodejs', 'mjs', 'cjs', 'jsx', 'es6', 'ecmascript'],
      extensions: ['.js', '.mjs', '.cjs'],
    },
    {
      name: 'typescript',
      aliases: ['ts', 'tsx', 'mts', 'cts'],
      extensions: ['.ts', '.mts', '.cts'],
      // TypeScript-only syntax: parameter or return type annotations,
      // `interface`, `type X =`, `enum`, generics, access modifiers.
      signals: [
        /^[ \t]*(export[ \t]+)?(interface|enum)[ \t]+[\w$]+/m,
        /^[ \t]*(export[ \t]+)?type[ \t]+[\w$]+[ \t]*(<[^>\n]*>)?[ \t]*=/m,
        // A first parameter with a type: `(a: number`, `(b?: string[]`. Not `, b: 2`,
        // which is just as likely an object literal.
        /\([ \t]*[\w$]+[ \t]*\??[ \t]*:[ \t]*[A-Za-z_$[{(<'"]/,
        // A return type before the body or arrow: `): number {`, `): string[] =>`.
        /\)[ \t]*:[ \t]*[\w$[('"][^?\n{};]*?[ \t]*(\{|=>)/,
        /:[ \t]*(number|string|boolean|any|unknown|void|never|bigint|object)\b/,
        /\bfunction\b[ \t]*[\w$]*[ \t]*<[^>\n]+>[ \t]*\(/,
        /\b(as[ \t]+(const|number|string|any|unknown)|readonly[ \t]+\w|implements[ \t]+\w|(private|protected|public)[ \t]+\w)/,
      ],
    },
  ],
  signals: [
    { pattern: /\bfunction\b[ \t]*\*?[ \t]*[\w$]*[ \t]*(<[^>\n]*>)?\(/, weight: 3 },
    { pattern: /^[ \t]*(export[ \t]+)?(const|let|var)[ \t]+[\w$[{]/m, weight: 3 },
    { pattern: /^[ \t]*import[ \t]+([\w$]+[ \t]+from|\{|\*|["'])/m, weight: 3 },
    { pattern: /\)[ \t]*(:[^{}\n]*)?\{[ \t]*$/m, weight: 3 },
    { pattern: /=>/, weight: 2 },
    { pattern: /===|!==/, weight: 2 },
    { pattern: /\b(console\.\w+|module\.exports|exports\.\w+|require\()/, weight: 2 },
    { pattern: /^[ \t]*export[ \t]/m, weight: 2 },
    { pattern: /\belse[ \t]*\{|\}[ \t]*else\b/, weight: 2 },
    { pattern: /;[ \t]*$/m, weight: 1 },
    { pattern: /^[ \t]*\/\/|\/\*/m, weight: 1 },
    // Not a bare `this`: English comments say "this" too.
    { pattern: /\b(null|undefined)\b|\bthis\./, weight: 1 },
  ],
  // TypeScript loses its types, ES modules become CommonJS, and the
  // top-level functions are found (prepare.ts, loaded when first needed).
  prepare: async (code, dialect) => (await import('./prepare.js')).prepareCode(code, dialect),
  // Tuples travel as arrays and sets as set tags (the harness makes Sets);
  // expected values as the harness writes a returned value.
  wire: { args: 'javascript', results: 'javascript-result' },
  // Bools are never numbers; --strict-types is about Python's numbers and leaves JavaScript's rules alone.
  equality: { normal: 'javascript', strictTypes: 'javascript' },
  usesPackages: false,
  eager: true,
  loadEngine: () => import('./engine.js'),
});
