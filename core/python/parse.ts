import { parser } from '@lezer/python';
import type { SyntaxNode } from '@lezer/common';
import { registerSource } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import type { PyAlias, PyExpr, PyModule, PyParam, PyStmt } from './ast.js';
import { ExprConverter } from './ExprConverter.js';
import { unclosedBracket } from './unclosedBracket.js';
import { bracketNeverClosed, pythonSyntaxError } from '../diagnostics/frontendErrors.js';

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
      const loc = conv.x.loc(at);
      const bracket = unclosedBracket(source, at);
      const opened = bracket && conv.x.loc(bracket.offset);
      if (bracket && opened && opened.line < loc.line) {
        const closer = { '(': ')', '[': ']', '{': '}' }[bracket.char];
        throw bracketNeverClosed(bracket.char, closer, loc.line, opened);
      }
      const near = source.slice(at, at + 20).split('\n')[0];
      throw pythonSyntaxError(near.trim() ? `invalid syntax near '${near.trim()}'` : 'invalid syntax (unexpected end of line or file)', loc);
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
  readonly x: ExprConverter;
  constructor(file: string, src: string, lineStarts: number[]) {
    this.x = new ExprConverter(file, src, lineStarts);
  }

  /** Statements of a Script or Body node. */
  block(n: SyntaxNode): PyStmt[] {
    const out: PyStmt[] = [];
    for (const c of this.x.children(n)) {
      if (c.name === ':' || c.name === ';') continue;
      if (c.name === 'StatementGroup') out.push(...this.block(c));
      else out.push(this.stmt(c));
    }
    return out;
  }

  stmt(n: SyntaxNode): PyStmt {
    const loc = this.x.loc(n.from);
    const kids = this.x.children(n);
    switch (n.name) {
      case 'ExpressionStatement':
        return { t: 'expr', value: this.x.exprList(kids), loc };
      case 'PassStatement':
        return { t: 'pass', loc };
      case 'AssignStatement':
        return this.assign(kids, loc);
      case 'UpdateStatement': {
        const opIdx = kids.findIndex((k) => k.name === 'UpdateOp');
        const op = this.x.text(kids[opIdx]).slice(0, -1);
        return { t: 'augassign', target: this.x.exprList(kids.slice(0, opIdx)), op, value: this.x.exprList(kids.slice(opIdx + 1)), loc };
      }
      case 'ReturnStatement': {
        const rest = kids.slice(1);
        return { t: 'return', value: rest.length ? this.x.exprList(rest) : null, loc };
      }
      case 'IfStatement':
        return this.ifStmt(kids, 0);
      case 'WhileStatement': {
        const body = kids.find((k) => k.name === 'Body');
        if (kids.some((k) => k.name === 'else')) return this.x.unsupported(n, 'while/else');
        return { t: 'while', test: this.x.expr(kids[1]), body: body ? this.block(body) : [], loc };
      }
      case 'ForStatement': {
        const inIdx = kids.findIndex((k) => k.name === 'in');
        const bodyIdx = kids.findIndex((k) => k.name === 'Body');
        if (kids.some((k) => k.name === 'else')) return this.x.unsupported(n, 'for/else');
        return {
          t: 'for',
          target: this.x.exprList(kids.slice(1, inIdx)),
          iter: this.x.exprList(kids.slice(inIdx + 1, bodyIdx)),
          body: this.block(kids[bodyIdx]),
          loc,
        };
      }
      case 'WithStatement': {
        const bodyIdx = kids.findIndex((k) => k.name === 'Body');
        const items: PyExpr[] = [];
        for (const part of this.x.splitCommas(kids.slice(1, bodyIdx))) {
          if (part.some((k) => k.name === 'as')) return this.x.unsupported(n, "'with ... as'");
          items.push(this.x.exprList(part));
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
          name: this.x.text(nameNode),
          bases: argList ? this.x.callArgs(argList).args : [],
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
        return this.x.unsupported(n, SIMPLE_UNSUPPORTED[n.name] ?? n.name.replace(/Statement$/, '').toLowerCase());
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
    return { t: 'assign', targets: groups.map((g) => this.x.exprList(g)), value: this.x.exprList(value), annotation, loc };
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
          type: typeNodes.length ? this.x.exprList(typeNodes) : null,
          name: asAt < 0 ? null : this.x.text(head[asAt + 1]),
          body,
          loc: this.x.loc(k.from),
        });
      } else continue;
      i = bodyAt;
    }
    return out;
  }

  ifStmt(kids: SyntaxNode[], from: number): PyStmt {
    // kids: if cond Body (elif cond Body)* (else Body)?
    const loc = this.x.loc(kids[from].from);
    const test = this.x.expr(kids[from + 1]);
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
    if (kids.some((k) => k.name === 'async')) return this.x.unsupported(n, 'async def');
    return {
      t: 'def',
      name: this.x.text(nameNode),
      nameLoc: this.x.loc(nameNode.from),
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
    const kids = this.x.children(list).filter((k) => k.name !== '(' && k.name !== ')');
    for (const part of this.x.splitCommas(kids)) {
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
          def = this.x.exprList(part.slice(j + 1));
          break;
        }
      }
      out.push({ name: this.x.text(nameNode), annotation, default: def, kind: pkind, loc: this.x.loc(nameNode.from) });
    }
    return out;
  }

  typeDef(n: SyntaxNode): PyExpr {
    const kids = this.x.children(n).filter((k) => k.name !== ':' && k.name !== '->');
    return this.x.exprList(kids);
  }

  decorator(n: SyntaxNode): PyExpr {
    // Decorator: At VariableName (. VariableName)* ArgList?
    const kids = this.x.children(n).filter((k) => k.name !== 'At');
    let e: PyExpr | null = null;
    for (const k of kids) {
      const loc = this.x.loc(k.from);
      if (k.name === 'VariableName' || k.name === 'PropertyName') {
        e = e === null ? { t: 'name', id: this.x.text(k), loc } : { t: 'attr', value: e, attr: this.x.text(k), loc: e.loc };
      } else if (k.name === 'ArgList' && e) {
        const { args, kwargs } = this.x.callArgs(k);
        e = { t: 'call', func: e, args, kwargs, loc: e.loc };
      } else if (k.name !== '.') {
        // newer grammars wrap the decorator expression in a node
        e = this.x.expr(k);
      }
    }
    return e ?? this.x.unsupported(n, 'decorator');
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
        else module += this.x.text(k);
      }
      const rest = kids.slice(impIdx + 1).filter((k) => k.name !== '(' && k.name !== ')');
      return { t: 'importfrom', module, level, names: this.aliases(rest), loc };
    }
    const names: PyAlias[] = [];
    for (const part of this.x.splitCommas(kids.slice(1))) {
      const asIdx = part.findIndex((k) => k.name === 'as');
      const nameParts = asIdx < 0 ? part : part.slice(0, asIdx);
      names.push({
        name: nameParts.map((k) => this.x.text(k)).join(''),
        asname: asIdx < 0 ? null : this.x.text(part[asIdx + 1]),
        loc: this.x.loc(part[0].from),
      });
    }
    return { t: 'import', names, loc };
  }

  aliases(nodes: SyntaxNode[]): PyAlias[] {
    return this.x.splitCommas(nodes)
      .filter((p) => p.length)
      .map((part) => {
        const asIdx = part.findIndex((k) => k.name === 'as');
        return {
          name: this.x.text(part[0]),
          asname: asIdx < 0 ? null : this.x.text(part[asIdx + 1]),
          loc: this.x.loc(part[0].from),
        };
      });
  }
}
