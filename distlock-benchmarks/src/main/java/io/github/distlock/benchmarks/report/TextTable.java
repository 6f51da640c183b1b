package io.github.distlock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A table rendered either as aligned plain text for the console or as a Markdown table for the results file.
 */
public final class TextTable {

	private final List<String> header;

	private final List<List<String>> rows = new ArrayList<>();

	public TextTable(List<String> header) {
		this.header = List.copyOf(header);
	}

	public void add(List<String> row) {
		this.rows.add(List.copyOf(row));
	}

	public String plain() {
		int[] widths = new int[this.header.size()];
		for (List<String> row : all()) {
			for (int i = 0; i < row.size(); i++) {
				widths[i] = Math.max(widths[i], row.get(i).length());
			}
		}
		StringBuilder text = new StringBuilder();
		boolean first = true;
		for (List<String> row : all()) {
			for (int i = 0; i < row.size(); i++) {
				String cell = row.get(i);
				// Names left-aligned, numbers right-aligned, as numbers are compared by magnitude.
				text.append(pad(cell, widths[i], i > 0)).append((i < row.size() - 1) ? "  " : "");
			}
			text.append('\n');
			if (first) {
				for (int i = 0; i < widths.length; i++) {
					text.append("-".repeat(widths[i])).append((i < widths.length - 1) ? "  " : "");
				}
				text.append('\n');
				first = false;
			}
		}
		return text.toString();
	}

	public String markdown() {
		StringBuilder text = new StringBuilder();
		text.append(line(this.header));
		text.append('|');
		for (int i = 0; i < this.header.size(); i++) {
			text.append((i == 0) ? " --- |" : " ---: |");
		}
		text.append('\n');
		for (List<String> row : this.rows) {
			text.append(line(row));
		}
		return text.toString();
	}

	private static String line(List<String> cells) {
		StringBuilder text = new StringBuilder("|");
		for (String cell : cells) {
			text.append(' ').append(cell.replace("|", "\\|")).append(" |");
		}
		return text.append('\n').toString();
	}

	private List<List<String>> all() {
		List<List<String>> all = new ArrayList<>();
		all.add(this.header);
		all.addAll(this.rows);
		return all;
	}

	private static String pad(String text, int width, boolean alignRight) {
		String fill = " ".repeat(Math.max(0, width - text.length()));
		return alignRight ? fill + text : text + fill;
	}

}
