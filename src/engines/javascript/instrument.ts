/**
 * Adds the meter's counters to a JavaScript candidate for a measured run
 * (docs/METERING-JS.md). The code is parsed with acorn and the counters are
 * inserted into the source text at known offsets, so everything else of the
 * candidate stays byte for byte as it was.
 *
 * - Every straight-line block (a function body, a loop body, which also
 *   holds the loop's test and update, each branch of an `if`, a `switch`
 *   case, a `try`/`catch`/`finally` block, the top level) starts with
 *   `__evalrun_c(w, b)`: `w` is the number of syntax nodes the block runs
 *   when it runs to its end, `b` the bytes of the literals and closures it
 *   creates. A counter per block rather than per statement keeps the cost
 *   of metering to one call per block entry while still weighing a long
 *   block above a short one.
 * - A spread (`...x`) becomes `...__evalrun_s(x)`, which charges the number
 *   of items spread; `new C(...)` (and `Array(n)`) becomes
 *   `__evalrun_n(new C(...))`, which charges what the new object holds (an
 *   array's slots, a typed array's bytes).
 * - The three names live in the context as `const` bindings made before
 *   the candidate's code (sandbox/meter.js): a candidate that names anything
 *   `__evalrun_…` could shadow them, so such code is refused, and so is
 *   `with`, whose object could shadow them by a computed name.
 */
import { Parser, type Node } from 'acorn';

export const RESERVED_PREFIX = '__evalrun_';

export type Instrumented = { ok: true; code: string } | { ok: false; error: string };

/** Bytes a new array, object or closure holds, as V8 lays them out on 64-bit (fields of 8 bytes). */
const ARRAY_BYTES = 16;
const OBJECT_BYTES = 24;
const SLOT_BYTES = 8;
const CLOSURE_BYTES = 32;

interface Block {
  weight: number;
  bytes: number;
}

/** Text inserted at `pos`; an `open` edit and its `close` edit share `seq`. */
interface Edit {
  pos: number;
  seq: number;
  close: boolean;
  text: () => string;
}

type AnyNode = Node & Record<string, unknown>;

class Refused extends Error {}

export function instrument(code: string): Instrumented {
  let program: AnyNode;
  try {
    program = Parser.parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true }) as unknown as AnyNode;
  } catch (e) {
    return { ok: false, error: `does not compile: ${e instanceof Error ? e.message : String(e)}` };
  }
  const edits: Edit[] = [];
  try {
    new Walker(code, edits).program(program);
  } catch (e) {
    if (e instanceof Refused) return { ok: false, error: e.message };
    throw e;
  }
  return { ok: true, code: apply(code, edits) };
}

/** Inserts the edits: at one offset, closing texts (innermost first) before opening ones (outermost first). */
function apply(code: string, edits: Edit[]): string {
  const sorted = [...edits].sort((a, b) => {
    if (a.pos !== b.pos) return a.pos - b.pos;
    if (a.close !== b.close) return a.close ? -1 : 1;
    return a.close ? b.seq - a.seq : a.seq - b.seq;
  });
  const parts: string[] = [];
  let at = 0;
  for (const edit of sorted) {
    parts.push(code.slice(at, edit.pos), edit.text());
    at = edit.pos;
  }
  parts.push(code.slice(at));
  return parts.join('');
}

function tickText(block: Block): string {
  return block.bytes > 0 ? `${RESERVED_PREFIX}c(${block.weight},${block.bytes});` : `${RESERVED_PREFIX}c(${block.weight});`;
}

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
const LOOPS = new Set(['ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement']);

class Walker {
  private seq = 0;

  constructor(
    private readonly code: string,
    private readonly edits: Edit[],
  ) {}

  program(node: AnyNode): void {
    this.statements(node.body as AnyNode[], null);
  }

  /**
   * A list of statements that runs as one block. The counter goes after any
   * directive prologue, where it cannot turn `'use strict'` off (and after a
   * `;`, since a directive may end without one).
   */
  private statements(body: AnyNode[], fallbackPos: number | null): void {
    const block: Block = { weight: 0, bytes: 0 };
    let pos = fallbackPos;
    let afterDirective = false;
    for (let i = 0; i < body.length && typeof body[i]!.directive === 'string'; i++) {
      pos = body[i]!.end;
      afterDirective = true;
    }
    if (pos === null) {
      if (body.length === 0) return;
      pos = body[0]!.start;
    }
    this.insert(pos, block, afterDirective ? ';' : '');
    for (const statement of body) this.visit(statement, block);
  }

  private insert(pos: number, block: Block, prefix = ''): void {
    this.edits.push({ pos, seq: this.seq++, close: false, text: () => prefix + tickText(block) });
  }

  private wrap(node: AnyNode, open: string | (() => string), close: string): void {
    const seq = this.seq++;
    this.edits.push({ pos: node.start, seq, close: false, text: typeof open === 'string' ? () => open : open });
    this.edits.push({ pos: node.end, seq, close: true, text: () => close });
  }

  /** A statement in a body position (loop body, branch): its own block, braced when it is not one already. */
  private body(node: AnyNode, extra: AnyNode[]): void {
    const block: Block = { weight: 0, bytes: 0 };
    if (node.type === 'BlockStatement') this.insert(node.start + 1, block);
    else this.wrap(node, () => `{${tickText(block)}`, '}');
    for (const part of extra) this.visit(part, block);
    this.visit(node, block);
  }

  private functionBody(fn: AnyNode): void {
    const body = fn.body as AnyNode;
    if (body.type === 'BlockStatement') {
      this.statements(body.body as AnyNode[], body.start + 1);
      return;
    }
    const block: Block = { weight: 0, bytes: 0 };
    this.wrap(body, () => `(${RESERVED_PREFIX}c(${block.weight}${block.bytes > 0 ? `,${block.bytes}` : ''}),`, ')');
    this.visit(body, block);
  }

  private visit(node: AnyNode, block: Block): void {
    block.weight++;
    const type = node.type;
    if (type === 'Identifier' && (node.name as string).startsWith(RESERVED_PREFIX)) {
      throw new Refused(`cannot be measured: the name ${node.name as string} is reserved for evalrun's meter`);
    }
    if (type === 'WithStatement') throw new Refused('cannot be measured: a with statement could hide the meter');
    if (FUNCTIONS.has(type) || type === 'ClassExpression' || type === 'ClassDeclaration') block.bytes += CLOSURE_BYTES;
    if (type === 'ArrayExpression') block.bytes += ARRAY_BYTES + SLOT_BYTES * (node.elements as unknown[]).length;
    if (type === 'ObjectExpression') block.bytes += OBJECT_BYTES + SLOT_BYTES * (node.properties as unknown[]).length;

    if (FUNCTIONS.has(type)) {
      for (const param of node.params as AnyNode[]) this.visit(param, block);
      if (isNode(node.id)) this.visit(node.id, block);
      this.functionBody(node);
      return;
    }
    if (LOOPS.has(type)) {
      this.loop(node, block);
      return;
    }
    switch (type) {
      case 'IfStatement':
        this.visit(node.test as AnyNode, block);
        this.body(node.consequent as AnyNode, []);
        if (isNode(node.alternate)) this.body(node.alternate, []);
        return;
      case 'SwitchCase':
        if (isNode(node.test)) this.visit(node.test, block);
        if ((node.consequent as AnyNode[]).length > 0) this.statements(node.consequent as AnyNode[], null);
        return;
      case 'TryStatement':
        this.body(node.block as AnyNode, []);
        if (isNode(node.handler)) {
          const handler = node.handler;
          if (isNode(handler.param)) this.visit(handler.param, block);
          this.body(handler.body as AnyNode, []);
        }
        if (isNode(node.finalizer)) this.body(node.finalizer, []);
        return;
      case 'StaticBlock':
        this.statements(node.body as AnyNode[], this.code.indexOf('{', node.start) + 1);
        return;
      case 'ObjectExpression':
        // An object spread copies own properties and never iterates: it is weighed as one node.
        for (const property of node.properties as AnyNode[]) {
          if (property.type === 'SpreadElement') {
            block.weight++;
            this.visit(property.argument as AnyNode, block);
          } else {
            this.visit(property, block);
          }
        }
        return;
      case 'SpreadElement':
        this.wrap(node.argument as AnyNode, `${RESERVED_PREFIX}s(`, ')');
        break;
      case 'NewExpression':
        this.wrap(node, `${RESERVED_PREFIX}n(`, ')');
        break;
      case 'CallExpression':
        // `Array(n)` makes an array as `new Array(n)` does.
        if ((node.callee as AnyNode).type === 'Identifier' && (node.callee as AnyNode).name === 'Array') this.wrap(node, `${RESERVED_PREFIX}n(`, ')');
        break;
    }
    this.children(node, block);
  }

  /** A loop's test, update and left side run on every iteration: they weigh in its body's block. */
  private loop(node: AnyNode, block: Block): void {
    const perIteration: AnyNode[] = [];
    if (node.type === 'ForStatement') {
      if (isNode(node.init)) this.visit(node.init, block);
      if (isNode(node.test)) perIteration.push(node.test);
      if (isNode(node.update)) perIteration.push(node.update);
    } else if (node.type === 'ForInStatement' || node.type === 'ForOfStatement') {
      this.visit(node.right as AnyNode, block);
      perIteration.push(node.left as AnyNode);
    } else {
      perIteration.push(node.test as AnyNode);
    }
    this.body(node.body as AnyNode, perIteration);
  }

  private children(node: AnyNode, block: Block): void {
    for (const key of Object.keys(node)) {
      if (key === 'type' || key === 'start' || key === 'end') continue;
      const value = node[key];
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) this.visit(item, block);
      } else if (isNode(value)) {
        this.visit(value, block);
      }
    }
  }
}
