import { parser } from '@lezer/python';
import type { SyntaxNode } from '@lezer/common';
import { fail, registerSource } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import type { PyAlias, PyExpr, PyKeyword, PyModule, PyParam, PyStmt } from './ast.js';

/**
 * Python source -> typed AST, through @lezer/python. The grammar recovers from errors,
 * so the first error node becomes one precise E_SYNTAX diagnostic.
 *
 * Two corrections to the grammar are applied here so expressions follow Python:
 *  - lezer binds `not` looser than `and`/`or` (`not a or b` parses as `not (a or b)`),
 *    so a `not` over an unparenthesized and/or is rotated into its left operand;
 *  - chained comparisons (`a < b < c`) are expanded into `a < b and b < c`.
 */
export function parsePython(file: string, source: string): PyModule {
  registerSource(file, source);
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const tree = parser.parse(source);
  const conv = new Converter(file, source, lineStarts);
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) {
      const at = cursor.from;
      const loc = conv.loc(at);
      const near = source.slice(at, at + 20).split('\n')[0];
      fail('E_SYNTAX', near.trim() ? `invalid syntax near '${near.trim()}'` : 'invalid syntax (unexpected end of line or file)', {
        loc,
        hint: 'fix the Python syntax error; orch parses modules as Python 3',
      });
    }
  } while (cursor.next());
  return { file, source, body: conv.block(tree.topNode) };
}

const SIMPLE_UNSUPPORTED: Record<string, string> = {
  ScopeStatement: 'global/nonlocal',
  DeleteStatement: 'del',
  RaiseStatement: 'raise',
  BreakStatement: 'break',
  ContinueStatement: 'continue',
  AssertStatement: 'assert',
  MatchStatement: 'match',
  PrintStatement: 'print',
};

class Converter {
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

  /** Statements of a Script or Body node. */
  block(n: SyntaxNode): PyStmt[] {
    const out: PyStmt[] = [];
    for (const c of this.children(n)) {
      if (c.name === ':' || c.name === ';') continue;
      if (c.name === 'StatementGroup') out.push(...this.block(c));
      else out.push(this.stmt(c));
    }
    return out;
  }

  stmt(n: SyntaxNode): PyStmt {
    const loc = this.loc(n.from);
    const kids = this.children(n);
    switch (n.name) {
      case 'ExpressionStatement':
        return { t: 'expr', value: this.exprList(kids), loc };
      case 'PassStatement':
        return { t: 'pass', loc };
      case 'AssignStatement':
        return this.assign(kids, loc);
      case 'UpdateStatement': {
        const opIdx = kids.findIndex((k) => k.name === 'UpdateOp');
        const op = this.text(kids[opIdx]).slice(0, -1);
        return { t: 'augassign', target: this.exprList(kids.slice(0, opIdx)), op, value: this.exprList(kids.slice(opIdx + 1)), loc };
      }
      case 'ReturnStatement': {
        const rest = kids.slice(1);
        return { t: 'return', value: rest.length ? this.exprList(rest) : null, loc };
      }
      case 'IfStatement':
        return this.ifStmt(kids, 0);
      case 'WhileStatement': {
        const body = kids.find((k) => k.name === 'Body');
        if (kids.some((k) => k.name === 'else')) return this.unsupported(n, 'while/else');
        return { t: 'while', test: this.expr(kids[1]), body: body ? this.block(body) : [], loc };
      }
      case 'ForStatement': {
        const inIdx = kids.findIndex((k) => k.name === 'in');
        const bodyIdx = kids.findIndex((k) => k.name === 'Body');
        if (kids.some((k) => k.name === 'else')) return this.unsupported(n, 'for/else');
        return {
          t: 'for',
          target: this.exprList(kids.slice(1, inIdx)),
          iter: this.exprList(kids.slice(inIdx + 1, bodyIdx)),
          body: this.block(kids[bodyIdx]),
          loc,
        };
      }
      case 'WithStatement': {
        const bodyIdx = kids.findIndex((k) => k.name === 'Body');
        const items: PyExpr[] = [];
        for (const part of this.splitCommas(kids.slice(1, bodyIdx))) {
          if (part.some((k) => k.name === 'as')) return this.unsupported(n, "'with ... as'");
          items.push(this.exprList(part));
        }
        return { t: 'with', items, body: this.block(kids[bodyIdx]), loc };
      }
      case 'DecoratedStatement': {
        const decorators = kids.filter((k) => k.name === 'Decorator').map((d) => this.decorator(d));
        const target = kids[kids.length - 1];
        const s = this.stmt(target);
        if (s.t === 'def' || s.t === 'class') s.decorators = decorators;
        return s;
      }
      case 'FunctionDefinition':
        return this.funcDef(n, kids, loc);
      case 'ClassDefinition': {
        const nameNode = kids.find((k) => k.name === 'VariableName')!;
        const argList = kids.find((k) => k.name === 'ArgList');
        const body = kids.find((k) => k.name === 'Body');
        return {
          t: 'class',
          name: this.text(nameNode),
          bases: argList ? this.callArgs(argList).args : [],
          body: body ? this.block(body) : [],
          decorators: [],
          loc,
        };
      }
      case 'ImportStatement':
        return this.importStmt(kids, loc);
      case 'TryStatement':
        return this.tryStmt(kids, loc);
      default:
        return this.unsupported(n, SIMPLE_UNSUPPORTED[n.name] ?? n.name.replace(/Statement$/, '').toLowerCase());
    }
  }

  assign(kids: SyntaxNode[], loc: SourceLoc): PyStmt {
    const groups: SyntaxNode[][] = [[]];
    let annotation: PyExpr | null = null;
    for (const k of kids) {
      if (k.name === 'AssignOp') groups.push([]);
      else if (k.name === 'TypeDef') annotation = this.typeDef(k);
      else groups[groups.length - 1].push(k);
    }
    const value = groups.pop()!;
    if (groups.length === 0) {
      // a bare annotation `x: int`
      return { t: 'pass', loc };
    }
    return { t: 'assign', targets: groups.map((g) => this.exprList(g)), value: this.exprList(value), annotation, loc };
  }

  tryStmt(kids: SyntaxNode[], loc: SourceLoc): PyStmt {
    // kids: try Body (except [type [as name]] Body)* (else Body)? (finally Body)?
    const out: Extract<PyStmt, { t: 'try' }> = { t: 'try', body: [], handlers: [], orelse: [], finalbody: [], loc, length: 'try'.length };
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i];
      const bodyAt = kids.findIndex((b, j) => j > i && b.name === 'Body');
      if (bodyAt < 0) break;
      const body = this.block(kids[bodyAt]);
      if (k.name === 'try') out.body = body;
      else if (k.name === 'else') out.orelse = body;
      else if (k.name === 'finally') out.finalbody = body;
      else if (k.name === 'except') {
        const head = kids.slice(i + 1, bodyAt);
        const asAt = head.findIndex((h) => h.name === 'as');
        const typeNodes = asAt < 0 ? head : head.slice(0, asAt);
        out.handlers.push({
          type: typeNodes.length ? this.exprList(typeNodes) : null,
          name: asAt < 0 ? null : this.text(head[asAt + 1]),
          body,
          loc: this.loc(k.from),
        });
      } else continue;
      i = bodyAt;
    }
    return out;
  }

  ifStmt(kids: SyntaxNode[], from: number): PyStmt {
    // kids: if cond Body (elif cond Body)* (else Body)?
    const loc = this.loc(kids[from].from);
    const test = this.expr(kids[from + 1]);
    const body = this.block(kids[from + 2]);
    const next = kids[from + 3];
    let orelse: PyStmt[] = [];
    if (next && next.name === 'elif') orelse = [this.ifStmt(kids, from + 3)];
    else if (next && next.name === 'else') orelse = this.block(kids[from + 4]);
    return { t: 'if', test, body, orelse, loc };
  }

  funcDef(n: SyntaxNode, kids: SyntaxNode[], loc: SourceLoc): PyStmt {
    const nameNode = kids.find((k) => k.name === 'VariableName')!;
    const paramList = kids.find((k) => k.name === 'ParamList')!;
    const ret = kids.find((k) => k.name === 'TypeDef');
    const body = kids.find((k) => k.name === 'Body');
    if (kids.some((k) => k.name === 'async')) return this.unsupported(n, 'async def');
    return {
      t: 'def',
      name: this.text(nameNode),
      nameLoc: this.loc(nameNode.from),
      params: this.params(paramList),
      body: body ? this.block(body) : [],
      decorators: [],
      returns: ret ? this.typeDef(ret) : null,
      loc,
    };
  }

  params(list: SyntaxNode): PyParam[] {
    const out: PyParam[] = [];
    let kind: PyParam['kind'] = 'normal';
    const kids = this.children(list).filter((k) => k.name !== '(' && k.name !== ')');
    for (const part of this.splitCommas(kids)) {
      if (part.length === 0) continue;
      let i = 0;
      let pkind: PyParam['kind'] = kind;
      if (part[0].name === '*') {
        if (part.length === 1) {
          kind = 'kwonly';
          continue;
        }
        pkind = 'varargs';
        kind = 'kwonly';
        i = 1;
      } else if (part[0].name === '**') {
        pkind = 'kwargs';
        i = 1;
      } else if (part[0].name === '/') {
        continue;
      }
      const nameNode = part[i];
      let annotation: PyExpr | null = null;
      let def: PyExpr | null = null;
      for (let j = i + 1; j < part.length; j++) {
        if (part[j].name === 'TypeDef') annotation = this.typeDef(part[j]);
        else if (part[j].name === 'AssignOp') {
          def = this.exprList(part.slice(j + 1));
          break;
        }
      }
      out.push({ name: this.text(nameNode), annotation, default: def, kind: pkind, loc: this.loc(nameNode.from) });
    }
    return out;
  }

  typeDef(n: SyntaxNode): PyExpr {
    const kids = this.children(n).filter((k) => k.name !== ':' && k.name !== '->');
    return this.exprList(kids);
  }

  decorator(n: SyntaxNode): PyExpr {
    // Decorator: At VariableName (. VariableName)* ArgList?
    const kids = this.children(n).filter((k) => k.name !== 'At');
    let e: PyExpr | null = null;
    for (const k of kids) {
      const loc = this.loc(k.from);
      if (k.name === 'VariableName' || k.name === 'PropertyName') {
        e = e === null ? { t: 'name', id: this.text(k), loc } : { t: 'attr', value: e, attr: this.text(k), loc: e.loc };
      } else if (k.name === 'ArgList' && e) {
        const { args, kwargs } = this.callArgs(k);
        e = { t: 'call', func: e, args, kwargs, loc: e.loc };
      } else if (k.name !== '.') {
        // newer grammars wrap the decorator expression in a node
        e = this.expr(k);
      }
    }
    return e ?? this.unsupported(n, 'decorator');
  }

  importStmt(kids: SyntaxNode[], loc: SourceLoc): PyStmt {
    if (kids[0].name === 'from') {
      const impIdx = kids.findIndex((k) => k.name === 'import');
      let level = 0;
      let module = '';
      for (const k of kids.slice(1, impIdx)) {
        if (k.name === '.' && module === '') level++;
        else if (k.name === 'Ellipsis') level += 3;
        else if (k.name === '.') module += '.';
        else module += this.text(k);
      }
      const rest = kids.slice(impIdx + 1).filter((k) => k.name !== '(' && k.name !== ')');
      return { t: 'importfrom', module, level, names: this.aliases(rest), loc };
    }
    const names: PyAlias[] = [];
    for (const part of this.splitCommas(kids.slice(1))) {
      const asIdx = part.findIndex((k) => k.name === 'as');
      const nameParts = asIdx < 0 ? part : part.slice(0, asIdx);
      names.push({
        name: nameParts.map((k) => this.text(k)).join(''),
        asname: asIdx < 0 ? null : this.text(part[asIdx + 1]),
        loc: this.loc(part[0].from),
      });
    }
    return { t: 'import', names, loc };
  }

  aliases(nodes: SyntaxNode[]): PyAlias[] {
    return this.splitCommas(nodes)
      .filter((p) => p.length)
      .map((part) => {
        const asIdx = part.findIndex((k) => k.name === 'as');
        return {
          name: this.text(part[0]),
          asname: asIdx < 0 ? null : this.text(part[asIdx + 1]),
          loc: this.loc(part[0].from),
        };
      });
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
