"""JSON merge patch (RFC 7396): how a PATCH body changes a JSON document it names only in part."""


def merge_patch(target, patch):
    """`target` changed by `patch`: a member set to null is removed, an object merges into an object member,
    anything else (arrays included) replaces the member. Neither argument is changed."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for name, value in patch.items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = merge_patch(merged.get(name), value)
    return merged
