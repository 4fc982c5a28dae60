"""Named points of a forward pass, as TransformerLens's hooks work: what each reference pass calls at every hook name."""


def hook_points(hooks=None):
    """hooks {name: fn(tensor) -> tensor or None} -> (point, cache). point(name, value) runs hooks[name] on a copy of
    value (a returned tensor replaces the activation from there on), records the value in cache[name], and returns
    it."""
    hooks = hooks or {}
    cache = {}

    def point(name, value):
        if name in hooks:
            edited = hooks[name](value.clone())
            if edited is not None:
                value = edited
        cache[name] = value.clone()
        return value

    return point, cache
