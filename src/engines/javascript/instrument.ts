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
 *   of items spread, and an object spread `...__evalrun_o(x,0)`, which
 *   charges the properties copied. A rest element copies too: a binding
 *   made by one (`[h, ...t]`, `{a, ...others}`, in a declaration, a
 *   parameter, a loop's head or a catch clause) is charged its size right
 *   after it is made (`__evalrun_o(t,0)`), and an assignment to a pattern
 *   with a rest has its value charged for the items past those before the
 *   rest (`__evalrun_r(value,k)`, `__evalrun_o(value,k)`); `new C(...)` (and `Array(n)`) becomes
 *   `__evalrun_n(new C(...))`, which charges what the new object holds (an
 *   array's slots, a typed array's bytes).
 * - The meter's names live in the context as `const` bindings made before
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
  /** Declarations in a loop's head, whose rest bindings the loop's body charges. */
  private readonly heads = new Set<AnyNode>();

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
  private statements(body: AnyNode[], fallbackPos: number | null, suffix = ''): void {
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
    this.insert(pos, block, afterDirective ? ';' : '', suffix);
    for (const statement of body) this.visit(statement, block);
  }

  private insert(pos: number, block: Block, prefix = '', suffix = ''): void {
    this.edits.push({ pos, seq: this.seq++, close: false, text: () => prefix + tickText(block) + suffix });
  }

  /** Text at `pos` inside every wrap that closes there (a close edit made after them). */
  private append(pos: number, text: string): void {
    this.edits.push({ pos, seq: this.seq++, close: true, text: () => text });
  }

  private wrap(node: AnyNode, open: string | (() => string), close: string): void {
    const seq = this.seq++;
    this.edits.push({ pos: node.start, seq, close: false, text: typeof open === 'string' ? () => open : open });
    this.edits.push({ pos: node.end, seq, close: true, text: () => close });
  }

  /** A statement in a body position (loop body, branch): its own block, braced when it is not one already. */
  private body(node: AnyNode, extra: AnyNode[], suffix = ''): void {
    const block: Block = { weight: 0, bytes: 0 };
    if (node.type === 'BlockStatement') this.insert(node.start + 1, block, '', suffix);
    else this.wrap(node, () => `{${tickText(block)}${suffix}`, '}');
    for (const part of extra) this.visit(part, block);
    this.visit(node, block);
  }

  private functionBody(fn: AnyNode): void {
    const body = fn.body as AnyNode;
    // A rest parameter of its own holds what the call passed, which the caller's syntax or spread paid for.
    const params = (fn.params as AnyNode[]).map((p) => (p.type === 'RestElement' ? (p.argument as AnyNode) : p));
    const charges = restCharges(params);
    if (body.type === 'BlockStatement') {
      this.statements(body.body as AnyNode[], body.start + 1, charges);
      return;
    }
    const block: Block = { weight: 0, bytes: 0 };
    this.wrap(body, () => `(${RESERVED_PREFIX}c(${block.weight}${block.bytes > 0 ? `,${block.bytes}` : ''}),${charges.replaceAll(';', ',')}`, ')');
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
          this.body(handler.body as AnyNode, [], isNode(handler.param) ? restCharges([handler.param]) : '');
        }
        if (isNode(node.finalizer)) this.body(node.finalizer, []);
        return;
      case 'StaticBlock':
        this.statements(node.body as AnyNode[], this.code.indexOf('{', node.start) + 1);
        return;
      case 'ObjectExpression':
        // An object spread copies own properties and never iterates: its node, and the properties copied.
        for (const property of node.properties as AnyNode[]) {
          if (property.type === 'SpreadElement') {
            block.weight++;
            this.wrap(property.argument as AnyNode, `${RESERVED_PREFIX}o(`, ',0)');
            this.visit(property.argument as AnyNode, block);
          } else {
            this.visit(property, block);
          }
        }
        return;
      case 'SpreadElement':
        this.wrap(node.argument as AnyNode, `${RESERVED_PREFIX}s(`, ')');
        break;
      case 'VariableDeclaration':
        // A loop's head is charged in its body, where its bindings are made on each iteration.
        if (!this.heads.has(node)) {
          const charges = restCharges((node.declarations as AnyNode[]).map((d) => d.id as AnyNode));
          if (charges !== '') this.append(node.end, `;${charges}`);
        }
        break;
      case 'AssignmentExpression': {
        const rest = node.operator === '=' ? topLevelRest(node.left as AnyNode) : null;
        if (rest !== null) this.wrap(node.right as AnyNode, `${RESERVED_PREFIX}${rest.items ? 'r' : 'o'}(`, `,${rest.before})`);
        break;
      }
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
    let charges = '';
    if (node.type === 'ForStatement') {
      if (isNode(node.init)) {
        // Bindings made once before the first test have no statement of their own to be charged in (the body runs
        // on each iteration): a rest in a `for (;;)` loop's declaration is not charged, as the docs say.
        if (node.init.type === 'VariableDeclaration') this.heads.add(node.init);
        this.visit(node.init, block);
      }
      if (isNode(node.test)) perIteration.push(node.test);
      if (isNode(node.update)) perIteration.push(node.update);
    } else if (node.type === 'ForInStatement' || node.type === 'ForOfStatement') {
      this.visit(node.right as AnyNode, block);
      const left = node.left as AnyNode;
      if (left.type === 'VariableDeclaration') this.heads.add(left);
      perIteration.push(left);
      charges = restCharges(left.type === 'VariableDeclaration' ? (left.declarations as AnyNode[]).map((d) => d.id as AnyNode) : [left]);
    } else {
      perIteration.push(node.test as AnyNode);
    }
    this.body(node.body as AnyNode, perIteration, charges);
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

/** The names bound by rest elements anywhere in `patterns` (a rest whose target is itself a pattern binds none of its own). */
function restNames(pattern: AnyNode, into: string[]): void {
  switch (pattern.type) {
    case 'RestElement': {
      const target = pattern.argument as AnyNode;
      if (target.type === 'Identifier') into.push(target.name as string);
      else restNames(target, into);
      return;
    }
    case 'ArrayPattern':
      for (const element of pattern.elements as Array<AnyNode | null>) if (element !== null) restNames(element, into);
      return;
    case 'ObjectPattern':
      for (const property of pattern.properties as AnyNode[]) restNames(property.type === 'RestElement' ? property : (property.value as AnyNode), into);
      return;
    case 'AssignmentPattern':
      restNames(pattern.left as AnyNode, into);
      return;
  }
}

/** The meter's calls that charge each rest binding of `patterns` its size: `__evalrun_o(t,0);` per name. */
function restCharges(patterns: readonly AnyNode[]): string {
  const names: string[] = [];
  for (const p of patterns) restNames(p, names);
  return names.map((name) => `${RESERVED_PREFIX}o(${name},0);`).join('');
}

/** A pattern with a rest element of its own: whether it takes items (an array pattern) and how many come before the rest. */
function topLevelRest(pattern: AnyNode): { items: boolean; before: number } | null {
  if (pattern.type === 'ArrayPattern') {
    const elements = pattern.elements as Array<AnyNode | null>;
    const last = elements[elements.length - 1];
    return last?.type === 'RestElement' ? { items: true, before: elements.length - 1 } : null;
  }
  if (pattern.type === 'ObjectPattern') {
    const properties = pattern.properties as AnyNode[];
    const last = properties[properties.length - 1];
    return last?.type === 'RestElement' ? { items: false, before: properties.length - 1 } : null;
  }
  return null;
}
