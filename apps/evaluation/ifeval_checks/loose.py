# From if-verifiable 0.1.2, if_verifiable/common.py (Joan Cabezas), Apache License 2.0 (LICENSE here).
# The loose-evaluation variants of IFEval's instruction_following_eval (evaluation_lib.py).


def get_loose_transformations(response: str) -> list[str]:
    """Generate response variants for loose evaluation.

    Based on official IFBench/IFEval methodology:
    - Try removing first line, last line, or both (handles formatting artifacts)
    - Also try removing markdown asterisks (handles bold/italic formatting)
    """
    lines = response.split("\n")
    response_remove_first = "\n".join(lines[1:]).strip()
    response_remove_last = "\n".join(lines[:-1]).strip()
    response_remove_both = "\n".join(lines[1:-1]).strip()

    # Also try with markdown asterisks removed
    revised_response = response.replace("*", "")
    revised_response_remove_first = response_remove_first.replace("*", "")
    revised_response_remove_last = response_remove_last.replace("*", "")
    revised_response_remove_both = response_remove_both.replace("*", "")

    return [
        response,
        revised_response,
        response_remove_first,
        response_remove_last,
        response_remove_both,
        revised_response_remove_first,
        revised_response_remove_last,
        revised_response_remove_both,
    ]
