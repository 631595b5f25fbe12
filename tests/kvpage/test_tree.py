"""Element trees: the vocabulary a lab draws with, and what it refuses."""

import pytest

from kvpage.tree import TreeError, allowed_attribute, check, el, num


def test_an_element_is_tag_attributes_children_with_values_as_text() -> None:
    assert el("rect", {"x": 3, "class": "a"}) == ["rect", {"x": "3", "class": "a"}]
    assert el("li", {}, "one", el("span", {}, "two")) == ["li", {}, "one", ["span", {}, "two"]]


@pytest.mark.parametrize("tag", ["script", "iframe", "a", "img", "foreignObject", "use", "style", "object"])
def test_elements_that_run_or_load_anything_are_refused(tag: str) -> None:
    with pytest.raises(TreeError, match="is not one a lab may draw"):
        el(tag)
    with pytest.raises(TreeError):
        check(["svg", {}, [tag, {}]])


@pytest.mark.parametrize("name", ["onclick", "OnLoad", "style", "href", "src", "xlink:href", "srcdoc", "a b", ""])
def test_attributes_that_run_or_load_anything_are_refused(name: str) -> None:
    assert not allowed_attribute(name)
    with pytest.raises(TreeError, match="is not one a lab may set"):
        el("span", {name: "x"})


def test_ordinary_attributes_pass() -> None:
    assert all(allowed_attribute(name) for name in ("viewBox", "data-kind", "aria-hidden", "class", "tabindex"))


@pytest.mark.parametrize(
    ("node", "message"),
    [
        (["rect", {}], "must be inside an svg"),
        (["svg", {}, ["div", {}]], "cannot be inside an svg"),
        (["span", {"x": 1}], "must be text"),
        (["col", {}, "x"], "has no children"),
        (["span"], "a node is a text"),
        ({"tag": "span"}, "a node is a text"),
        (7, "a node is a text"),
    ],
)
def test_check_refuses_what_is_not_a_tree(node: object, message: str) -> None:
    with pytest.raises(TreeError, match=message):
        check(node)  # type: ignore[arg-type]


def test_numbers_print_the_same_way_everywhere() -> None:
    assert [num(v) for v in (3, 3.0, 2.5, 1 / 3, -0.001, 120.456, 100)] == [
        "3",
        "3",
        "2.5",
        "0.33",
        "0",
        "120.46",
        "100",
    ]
