/**
 * Python's language descriptor (../descriptor.ts): what the rest of evalrun
 * knows of Python. Its engine (bridge.ts, around Pyodide in an isolate)
 * loads only when a worker gets its first Python job: an interpreter's
 * memory (docs/ISOLATION.md, "Sizes the Python engine is built around") is
 * never paid by a JavaScript-only run.
 */
import { defineLanguage } from '../descriptor.js';

export const python = defineLanguage({
  name: 'python',
  dialects: [
    {
      name: 'python',
      aliases: ['py', 'python3', 'py3', 'python2', 'ipython', 'pycon', 'ipython3'],
      extensions: ['.py'],
    },
  ],
  // Python's own annotations (`def f(a: int) -> int:`) are none of TypeScript's signals.
  signals: [
    { pattern: /^[ \t]*(async[ \t]+)?def[ \t]+\w+[ \t]*\(/m, weight: 3 },
    { pattern: /^[ \t]*class[ \t]+\w+[ \t]*(\([^)]*\))?[ \t]*:[ \t]*(#.*)?$/m, weight: 3 },
    { pattern: /^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+[\w*(]/m, weight: 3 },
    // JavaScript's `import` always has quotes or braces; Python's never does.
    { pattern: /^[ \t]*import[ \t]+[\w.]+([ \t]+as[ \t]+\w+)?([ \t]*,[ \t]*[\w.]+([ \t]+as[ \t]+\w+)?)*[ \t]*$/m, weight: 2 },
    { pattern: /^[ \t]*(elif\b.*|else|try|finally|except\b.*)[ \t]*:[ \t]*(#.*)?$/m, weight: 2 },
    { pattern: /^[ \t]*(if|while|for|with)\b[^{};\n]*:[ \t]*(#.*)?$/m, weight: 2 },
    // A block opened by a colon and continued by deeper indentation.
    { pattern: /:[ \t]*(#.*)?\n([ \t]*\n)*([ \t]+)\S/, weight: 2 },
    { pattern: /"""|'''/, weight: 2 },
    { pattern: /\b(None|True|False)\b/, weight: 1 },
    { pattern: /^[ \t]*#([ \t#]|$)|[ \t]#[ \t]/m, weight: 1 },
    { pattern: /^[ \t]*(raise|pass|del|nonlocal|global|assert)\b/m, weight: 1 },
    { pattern: /\bself\b/, weight: 1 },
    { pattern: /\blambda\b[^:\n]*:/, weight: 1 },
  ],
  // Every tag as it is, and integral numbers where a float is declared as floats.
  wire: { args: 'python', results: 'python' },
  // Python's `==` (True == 1 == 1.0), or bool, int and float kept apart with --strict-types.
  equality: { normal: 'python', strictTypes: 'strict' },
  usesPackages: true,
  eager: false,
  loadEngine: () => import('./bridge.js'),
});
