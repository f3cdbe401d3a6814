import type { SourceLoc } from '../ir/types.js';

/**
 * A small typed Python AST, built from @lezer/python's concrete tree. The frontend works
 * on this instead of the lezer tree so it can rely on Python's real operator precedence
 * (see `parse.ts` for the places where the grammar needs correcting) and on locations.
 */

export type PyExpr =
  | { t: 'name'; id: string; loc: SourceLoc }
  | { t: 'num'; value: number; isInt: boolean; loc: SourceLoc }
  | { t: 'str'; value: string; loc: SourceLoc }
  | { t: 'const'; value: boolean | null; loc: SourceLoc }
  | { t: 'attr'; value: PyExpr; attr: string; loc: SourceLoc }
  | { t: 'subscript'; value: PyExpr; index: PyExpr[]; loc: SourceLoc }
  | { t: 'slice'; lower: PyExpr | null; upper: PyExpr | null; step: PyExpr | null; loc: SourceLoc }
  | { t: 'call'; func: PyExpr; args: PyExpr[]; kwargs: PyKeyword[]; loc: SourceLoc }
  | { t: 'binop'; op: string; left: PyExpr; right: PyExpr; loc: SourceLoc }
  | { t: 'unary'; op: '-' | '+' | 'not' | '~'; operand: PyExpr; loc: SourceLoc }
  | { t: 'boolop'; op: 'and' | 'or'; left: PyExpr; right: PyExpr; loc: SourceLoc }
  | { t: 'compare'; op: string; left: PyExpr; right: PyExpr; loc: SourceLoc }
  | { t: 'ifexp'; test: PyExpr; body: PyExpr; orelse: PyExpr; loc: SourceLoc }
  | { t: 'tuple'; elts: PyExpr[]; loc: SourceLoc }
  /** A list display: evaluated at module level (`VERSIONS = ["GFDL", "UFS"]`), rejected in stencils. */
  | { t: 'list'; elts: PyExpr[]; loc: SourceLoc; length: number }
  /** Dict displays appear in decorator arguments (`externals={...}`). */
  | { t: 'dict'; keys: PyExpr[]; values: PyExpr[]; loc: SourceLoc }
  /** Something valid Python but outside what orch accepts (list, dict, lambda ...). */
  | { t: 'unsupported'; what: string; loc: SourceLoc; length: number };

export interface PyKeyword {
  name: string | null; // null for **kwargs
  value: PyExpr;
  loc: SourceLoc;
}

export interface PyParam {
  name: string;
  annotation: PyExpr | null;
  default: PyExpr | null;
  kind: 'normal' | 'kwonly' | 'varargs' | 'kwargs';
  loc: SourceLoc;
}

export interface PyAlias {
  name: string;
  asname: string | null;
  loc: SourceLoc;
}

export type PyStmt =
  | { t: 'assign'; targets: PyExpr[]; value: PyExpr; annotation: PyExpr | null; loc: SourceLoc }
  | { t: 'augassign'; target: PyExpr; op: string; value: PyExpr; loc: SourceLoc }
  | { t: 'expr'; value: PyExpr; loc: SourceLoc }
  | { t: 'if'; test: PyExpr; body: PyStmt[]; orelse: PyStmt[]; loc: SourceLoc }
  | { t: 'while'; test: PyExpr; body: PyStmt[]; loc: SourceLoc }
  | { t: 'for'; target: PyExpr; iter: PyExpr; body: PyStmt[]; loc: SourceLoc }
  | { t: 'with'; items: PyExpr[]; body: PyStmt[]; loc: SourceLoc }
  | { t: 'def'; name: string; params: PyParam[]; body: PyStmt[]; decorators: PyExpr[]; returns: PyExpr | null; loc: SourceLoc; nameLoc: SourceLoc }
  | { t: 'class'; name: string; bases: PyExpr[]; body: PyStmt[]; decorators: PyExpr[]; loc: SourceLoc }
  | { t: 'return'; value: PyExpr | null; loc: SourceLoc }
  | { t: 'import'; names: PyAlias[]; loc: SourceLoc }
  | { t: 'importfrom'; module: string; level: number; names: PyAlias[]; loc: SourceLoc }
  | { t: 'pass'; loc: SourceLoc }
  /** `try`/`except`/`else`/`finally`: module code runs it at compile time; stencils reject it. */
  | { t: 'try'; body: PyStmt[]; handlers: { type: PyExpr | null; name: string | null; body: PyStmt[]; loc: SourceLoc }[]; orelse: PyStmt[]; finalbody: PyStmt[]; loc: SourceLoc; length: number }
  | { t: 'unsupported'; what: string; loc: SourceLoc; length: number };

export interface PyModule {
  file: string;
  source: string;
  body: PyStmt[];
}

/** The sub-expressions of a Python expression. */
export function pyChildren(e: PyExpr): PyExpr[] {
  switch (e.t) {
    case 'binop':
    case 'boolop':
    case 'compare':
      return [e.left, e.right];
    case 'unary':
      return [e.operand];
    case 'ifexp':
      return [e.test, e.body, e.orelse];
    case 'call':
      return [e.func, ...e.args, ...e.kwargs.map((k) => k.value)];
    case 'subscript':
      return [e.value, ...e.index];
    case 'tuple':
    case 'list':
      return e.elts;
    case 'attr':
      return [e.value];
    default:
      return [];
  }
}

/** `a.b.c` as written, for messages; undefined for other callee forms. */
export function dottedName(e: PyExpr): string | undefined {
  if (e.t === 'name') return e.id;
  if (e.t === 'attr') {
    const base = dottedName(e.value);
    return base === undefined ? undefined : `${base}.${e.attr}`;
  }
  return undefined;
}
