"""Figures are byte-identical across reruns (PNG and SVG)."""

from __future__ import annotations

from graphaudit.report.figures import pyplot, save_figure


def draw(path):
    plt = pyplot()
    figure, axis = plt.subplots()
    axis.bar([0, 1], [2.0, 3.0])
    save_figure(figure, path)


def test_png_and_svg_are_byte_stable(tmp_path):
    draw(tmp_path / "a.png")
    draw(tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
