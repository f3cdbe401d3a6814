"""The parameter list of a generated call function (a @program's dispatch, an orchestrated
method's call), spelled as the user's function declares it."""


def parameter_list(params, names):
    """`params` (inspect.Parameter, no *args/**kwargs) as source text, with `*` before the
    first keyword-only one; defaults go into `names` as `_default_<name>` for the exec."""
    rendered = []
    star = False
    for p in params:
        if p.kind == p.KEYWORD_ONLY and not star:
            rendered.append("*")
            star = True
        text = p.name
        if p.default is not p.empty:
            names[f"_default_{p.name}"] = p.default
            text += f"=_default_{p.name}"
        rendered.append(text)
    return rendered
