package io.github.distlock.torture.history;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * One line of a run's records: an event name followed by {@code name=value} fields, separated by single spaces
 * ({@code acquired worker=w1 key=hot-0 token=1763780000123456 nano=...}). Values never contain spaces, so a line
 * is read back without a parser library and stays readable with grep.
 */
public final class HistoryLine {

	private final String event;

	private final Map<String, String> fields;

	private HistoryLine(String event, Map<String, String> fields) {
		this.event = event;
		this.fields = fields;
	}

	public static HistoryLine of(String event) {
		return new HistoryLine(event, new LinkedHashMap<>());
	}

	public HistoryLine with(String name, Object value) {
		String text = String.valueOf(value);
		if (text.isEmpty() || text.indexOf(' ') >= 0 || text.indexOf('\n') >= 0) {
			throw new IllegalArgumentException("Field " + name + " needs a value without spaces: '" + text + "'");
		}
		this.fields.put(name, text);
		return this;
	}

	public static HistoryLine parse(String line) {
		String[] parts = line.trim().split(" ");
		Map<String, String> fields = new LinkedHashMap<>();
		for (int i = 1; i < parts.length; i++) {
			int equals = parts[i].indexOf('=');
			if (equals <= 0) {
				throw new IllegalArgumentException("Not a name=value field: '" + parts[i] + "' in: " + line);
			}
			fields.put(parts[i].substring(0, equals), parts[i].substring(equals + 1));
		}
		return new HistoryLine(parts[0], fields);
	}

	public String event() {
		return this.event;
	}

	public boolean has(String name) {
		return this.fields.containsKey(name);
	}

	public String text(String name) {
		String value = this.fields.get(name);
		if (value == null) {
			throw new NoSuchElementException("No field '" + name + "' in: " + this);
		}
		return value;
	}

	public long number(String name) {
		return Long.parseLong(text(name));
	}

	public String textOr(String name, String fallback) {
		return this.fields.getOrDefault(name, fallback);
	}

	@Override
	public String toString() {
		StringBuilder line = new StringBuilder(this.event);
		this.fields.forEach((name, value) -> line.append(' ').append(name).append('=').append(value));
		return line.toString();
	}

}
