package io.sqlqueue.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A plot written by hand as SVG: panels stacked one above the other, each a set of series
 * over the same intervals, drawn as polylines on a y axis from zero. No dependency.
 */
final class Svg {

	private static final int WIDTH = 960;

	private static final int PANEL_HEIGHT = 230;

	private static final int LEFT = 90;

	private static final int RIGHT = 210;

	private static final int TOP = 90;

	private static final int GAP = 60;

	private final String title;

	private final String subtitle;

	private final int intervals;

	private final long intervalSeconds;

	private final List<Panel> panels = new ArrayList<>();

	/** One line: its name in the legend, its colour, a value per interval (NaN for none). */
	record Series(String name, String color, double[] values) {
	}

	private record Panel(String title, List<Series> series) {
	}

	Svg(String title, String subtitle, int intervals, long intervalSeconds) {
		this.title = title;
		this.subtitle = subtitle;
		this.intervals = intervals;
		this.intervalSeconds = intervalSeconds;
	}

	void panel(String title, List<Series> series) {
		this.panels.add(new Panel(title, series));
	}

	String render() {
		int height = TOP + this.panels.size() * (PANEL_HEIGHT + GAP);
		StringBuilder svg = new StringBuilder();
		svg.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
						+ "font-family=\"sans-serif\" font-size=\"12\">%n",
				WIDTH, height, WIDTH, height));
		svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
		svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>%n",
				LEFT, escape(this.title)));
		int y = 44;
		for (String line : wrap(this.subtitle, 130)) {
			svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">%s</text>%n",
					LEFT, y, escape(line)));
			y += 15;
		}
		for (int i = 0; i < this.panels.size(); i++) {
			render(svg, this.panels.get(i), TOP + i * (PANEL_HEIGHT + GAP));
		}
		svg.append("</svg>\n");
		return svg.toString();
	}

	private void render(StringBuilder svg, Panel panel, int top) {
		int plotWidth = WIDTH - LEFT - RIGHT;
		int plotTop = top + 20;
		int plotHeight = PANEL_HEIGHT - 40;
		double max = 0;
		for (Series series : panel.series()) {
			for (double value : series.values()) {
				max = Double.isFinite(value) ? Math.max(max, value) : max;
			}
		}
		double scale = niceCeiling((max > 0) ? max * 1.05 : 1);
		svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n", LEFT,
				top + 12, escape(panel.title())));
		for (int tick = 0; tick <= 4; tick++) {
			double value = scale * tick / 4;
			double y = plotTop + plotHeight - plotHeight * tick / 4.0;
			svg.append(String.format(Locale.ROOT,
					"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>%n", LEFT, y, LEFT + plotWidth, y,
					(tick == 0) ? "#000" : "#ddd"));
			svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
					LEFT - 6, y + 4, label(value)));
		}
		for (int i = 0; i < this.intervals; i++) {
			double x = x(i, plotWidth);
			svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x,
					plotTop + plotHeight + 16, label((i + 1) * this.intervalSeconds / 60.0)));
		}
		svg.append(String.format(Locale.ROOT,
				"<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">minutes</text>%n", LEFT + plotWidth,
				plotTop + plotHeight + 32));
		int legend = 0;
		for (Series series : panel.series()) {
			StringBuilder points = new StringBuilder();
			for (int i = 0; i < series.values().length; i++) {
				double value = series.values()[i];
				if (!Double.isFinite(value)) {
					continue;
				}
				double x = x(i, plotWidth);
				double y = plotTop + plotHeight - plotHeight * value / scale;
				points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
				svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>%n", x,
						y, series.color()));
			}
			svg.append(String.format(Locale.ROOT,
					"<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
					points.toString().trim(), series.color()));
			int legendY = plotTop + 10 + legend++ * 18;
			svg.append(String.format(Locale.ROOT,
					"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>%n",
					LEFT + plotWidth + 12, legendY, LEFT + plotWidth + 32, legendY, series.color()));
			svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + plotWidth + 38,
					legendY + 4, escape(series.name())));
		}
	}

	private static List<String> wrap(String text, int width) {
		List<String> lines = new ArrayList<>();
		StringBuilder line = new StringBuilder();
		for (String word : text.split(" ")) {
			if (line.length() > 0 && line.length() + 1 + word.length() > width) {
				lines.add(line.toString());
				line.setLength(0);
			}
			line.append((line.length() > 0) ? " " : "").append(word);
		}
		lines.add(line.toString());
		return lines;
	}

	private double x(int interval, int plotWidth) {
		return LEFT + ((this.intervals > 1) ? plotWidth * interval / (double) (this.intervals - 1) : plotWidth / 2.0);
	}

	private static double niceCeiling(double value) {
		double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
		for (double step : new double[] { 1, 2, 2.5, 4, 5, 8, 10 }) {
			if (step * magnitude >= value) {
				return step * magnitude;
			}
		}
		return 10 * magnitude;
	}

	private static String label(double value) {
		if (value >= 1_000_000) {
			return String.format(Locale.ROOT, "%.1fM", value / 1_000_000);
		}
		if (value >= 10_000) {
			return String.format(Locale.ROOT, "%.0fk", value / 1_000);
		}
		if (value == Math.rint(value)) {
			return String.format(Locale.ROOT, "%.0f", value);
		}
		return String.format(Locale.ROOT, "%.2f", value);
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

}
