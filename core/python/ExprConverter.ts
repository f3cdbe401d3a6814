import type { SyntaxNode } from '@lezer/common';
import type { SourceLoc } from '../ir/types.js';
import type { PyExpr, PyKeyword } from './ast.js';

/**
 * Python expressions: lezer syntax nodes -> typed AST (and the source positions and
 * node helpers statements share). Two corrections to the grammar are applied here so
 * expressions follow Python (see parsePython).
 */
export class ExprConverter {
  /** Expressions written inside parentheses: precedence fixes must not cross them. */
  readonly parens = new WeakSet<PyExpr>();
  constructor(
    readonly file: string,
    readonly src: string,
    readonly lineStarts: number[],
  ) {}

  loc(pos: number): SourceLoc {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return { file: this.file, line: lo + 1, col: pos - this.lineStarts[lo] + 1 };
  }

  text(n: SyntaxNode): string {
    return this.src.slice(n.from, n.to);
  }

  children(n: SyntaxNode): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (let c = n.firstChild; c; c = c.nextSibling) if (c.name !== 'Comment') out.push(c);
    return out;
  }

  unsupported(n: SyntaxNode, what: string): { t: 'unsupported'; what: string; loc: SourceLoc; length: number } {
    const firstLineEnd = this.src.indexOf('\n', n.from);
    const end = firstLineEnd < 0 ? n.to : Math.min(n.to, firstLineEnd);
    return { t: 'unsupported', what, loc: this.loc(n.from), length: Math.max(1, end - n.from) };
  }

  splitCommas(nodes: SyntaxNode[]): SyntaxNode[][] {
    const out: SyntaxNode[][] = [[]];
    for (const k of nodes) {
      if (k.name === ',') out.push([]);
      else out[out.length - 1].push(k);
    }
    if (out.length > 1 && out[out.length - 1].length === 0) out.pop();
    return out;
  }

  /** A comma-separated expression list; more than one element is a tuple. */
  exprList(nodes: SyntaxNode[]): PyExpr {
    const parts = this.splitCommas(nodes);
    if (parts.length === 1 && parts[0].length === 1 && !nodes.some((k) => k.name === ',')) return this.expr(parts[0][0]);
    const elts = parts.filter((p) => p.length).map((p) => this.expr(p[0]));
    return { t: 'tuple', elts, loc: elts.length ? elts[0].loc : this.loc(nodes[0]?.from ?? 0) };
  }

  callArgs(argList: SyntaxNode): { args: PyExpr[]; kwargs: PyKeyword[] } {
    const kids = this.children(argList).filter((k) => k.name !== '(' && k.name !== ')');
    const args: PyExpr[] = [];
    const kwargs: PyKeyword[] = [];
    for (const part of this.splitCommas(kids)) {
      if (part.length === 0) continue;
      const loc = this.loc(part[0].from);
      if (part[0].name === '*' || part[0].name === '**') {
        args.push(this.unsupported(part[0], part[0].name === '*' ? '*args unpacking' : '**kwargs unpacking'));
      } else if (part.length >= 3 && part[1].name === 'AssignOp') {
        kwargs.push({ name: this.text(part[0]), value: this.expr(part[2]), loc });
      } else if (part.some((k) => k.name === 'for')) {
        args.push(this.unsupported(part[0], 'generator expression'));
      } else {
        args.push(this.expr(part[0]));
      }
    }
    return { args, kwargs };
  }

  expr(n: SyntaxNode): PyExpr {
    const loc = this.loc(n.from);
    const kids = this.children(n);
    switch (n.name) {
      case 'VariableName':
        return { t: 'name', id: this.text(n), loc };
      case 'Number': {
        const raw = this.text(n).replace(/_/g, '');
        const isInt = /^(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|\d+)$/.test(raw);
        if (/[jJ]$/.test(raw)) return this.unsupported(n, 'complex number');
        let value: number;
        if (/^0[oO]/.test(raw)) value = parseInt(raw.slice(2), 8);
        else if (/^0[bB]/.test(raw)) value = parseInt(raw.slice(2), 2);
        else value = Number(raw);
        return { t: 'num', value, isInt, loc };
      }
      case 'String':
        return { t: 'str', value: this.stringValue(this.text(n)), loc };
      case 'ContinuedString':
        return { t: 'str', value: kids.map((k) => this.stringValue(this.text(k))).join(''), loc };
      case 'FormatString':
        return this.unsupported(n, 'f-string');
      case 'Boolean':
        return { t: 'const', value: this.text(n) === 'True', loc };
      case 'None':
        return { t: 'const', value: null, loc };
      case 'Ellipsis':
        return { t: 'name', id: '...', loc };
      case 'ParenthesizedExpression': {
        const inner = kids.filter((k) => k.name !== '(' && k.name !== ')');
        const e = inner.length === 1 ? this.expr(inner[0]) : this.exprList(inner);
        this.parens.add(e);
        return e;
      }
      case 'TupleExpression': {
        const inner = kids.filter((k) => k.name !== '(' && k.name !== ')');
        const elts = this.splitCommas(inner).filter((p) => p.length).map((p) => this.expr(p[0]));
        return { t: 'tuple', elts, loc };
      }
      case 'MemberExpression':
        return this.member(n, kids, loc);
      case 'CallExpression': {
        const { args, kwargs } = this.callArgs(kids[kids.length - 1]);
        return { t: 'call', func: this.expr(kids[0]), args, kwargs, loc };
      }
      case 'UnaryExpression': {
        const opText = this.text(kids[0]);
        const operand = this.expr(kids[1]);
        if (opText === 'not') return this.notOf(operand, loc);
        return { t: 'unary', op: opText as '-' | '+' | '~', operand, loc };
      }
      case 'BinaryExpression':
        return this.binary(kids, loc);
      case 'ConditionalExpression': {
        // body if test else orelse
        const ifIdx = kids.findIndex((k) => k.name === 'if');
        const elseIdx = kids.findIndex((k) => k.name === 'else');
        return {
          t: 'ifexp',
          body: this.expr(kids[ifIdx - 1]),
          test: this.expr(kids[ifIdx + 1]),
          orelse: this.expr(kids[elseIdx + 1]),
          loc,
        };
      }
      case 'ArrayExpression': {
        const inner = kids.filter((k) => k.name !== '[' && k.name !== ']');
        const parts = this.splitCommas(inner).filter((p) => p.length);
        if (parts.some((p) => p.length !== 1)) return this.unsupported(n, 'list');
        const { length } = this.unsupported(n, 'list');
        return { t: 'list', elts: parts.map((p) => this.expr(p[0])), loc, length };
      }
      case 'DictionaryExpression': {
        const inner = kids.filter((k) => k.name !== '{' && k.name !== '}');
        const keys: PyExpr[] = [];
        const values: PyExpr[] = [];
        for (const part of this.splitCommas(inner)) {
          if (part.length !== 3 || part[1].name !== ':') return this.unsupported(n, 'dict unpacking');
          keys.push(this.expr(part[0]));
          values.push(this.expr(part[2]));
        }
        return { t: 'dict', keys, values, loc };
      }
      case 'SetExpression':
        return this.unsupported(n, 'set');
      case 'LambdaExpression':
        return this.unsupported(n, 'lambda');
      case 'ArrayComprehensionExpression':
      case 'DictionaryComprehensionExpression':
      case 'SetComprehensionExpression':
      case 'ComprehensionExpression':
        return this.unsupported(n, 'comprehension');
      case 'AwaitExpression':
        return this.unsupported(n, 'await');
      case 'YieldExpression':
        return this.unsupported(n, 'yield');
      case 'NamedExpression':
        return this.unsupported(n, "assignment expression ':='");
      default:
        return this.unsupported(n, n.name);
    }
  }

  stringValue(raw: string): string {
    const m = /^([rRbBuU]*)("""|'''|"|')([\s\S]*)\2$/.exec(raw);
    if (!m) return raw;
    if (/[rR]/.test(m[1])) return m[3];
    return m[3].replace(/\\(n|t|\\|'|")/g, (_, c: string) => ({ n: '\n', t: '\t', '\\': '\\', "'": "'", '"': '"' })[c] ?? c);
  }

  member(n: SyntaxNode, kids: SyntaxNode[], loc: SourceLoc): PyExpr {
    const value = this.expr(kids[0]);
    if (kids[1]?.name === '.') return { t: 'attr', value, attr: this.text(kids[2]), loc };
    // subscript: value [ elements separated by ',' with ':' tokens for slices ]
    const inner = kids.slice(2, kids.length - 1);
    const index: PyExpr[] = [];
    for (const part of this.splitCommas(inner)) {
      if (part.some((k) => k.name === ':')) index.push(this.slice(part));
      else if (part.length) index.push(this.expr(part[0]));
    }
    void n;
    return { t: 'subscript', value, index, loc };
  }

  slice(part: SyntaxNode[]): PyExpr {
    const loc = this.loc(part[0].from);
    const fields: (PyExpr | null)[] = [null, null, null];
    let slot = 0;
    for (const k of part) {
      if (k.name === ':') slot++;
      else fields[slot] = this.expr(k);
    }
    return { t: 'slice', lower: fields[0], upper: fields[1], step: fields[2], loc };
  }

  binary(kids: SyntaxNode[], loc: SourceLoc): PyExpr {
    const left = this.expr(kids[0]);
    const opNodes = kids.slice(1, kids.length - 1);
    const op = opNodes.map((k) => this.text(k)).join(' ').replace(/\s+/g, ' ');
    const right = this.expr(kids[kids.length - 1]);
    if (op === 'and' || op === 'or') return { t: 'boolop', op, left, right, loc };
    if (['<', '<=', '>', '>=', '==', '!=', 'in', 'not in', 'is', 'is not'].includes(op)) {
      const chained = kids[0].name === 'BinaryExpression' && left.t === 'compare';
      if (chained) {
        // a < b < c  ==  (a < b) and (b < c)
        return { t: 'boolop', op: 'and', left, right: { t: 'compare', op, left: left.right, right, loc }, loc };
      }
      return { t: 'compare', op, left, right, loc };
    }
    return { t: 'binop', op, left, right, loc };
  }

  /** `not` over an unparenthesized and/or binds to the leftmost operand only. */
  notOf(operand: PyExpr, loc: SourceLoc): PyExpr {
    if (operand.t === 'boolop' && !this.parenthesized(operand)) {
      return { ...operand, left: this.notOf(operand.left, loc), loc };
    }
    return { t: 'unary', op: 'not', operand, loc };
  }

  parenthesized(e: PyExpr): boolean {
    return this.parens.has(e);
  }
}
