package io.github.distlock.torture.check;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the checker found: figures (reported, never hidden) and violations (which fail a run).
 */
public final class CheckReport {

	/** Examples printed per kind of violation; the count says how many there were. */
	private static final int EXAMPLES = 5;

	private final String description;

	private final Map<String, String> figures = new LinkedHashMap<>();

	private final List<Violation> violations = new ArrayList<>();

	public CheckReport(String description) {
		this.description = description;
	}

	public void figure(String name, Object value) {
		this.figures.put(name, String.valueOf(value));
	}

	public void violation(Violation.Kind kind, String detail) {
		this.violations.add(new Violation(kind, detail));
	}

	public Map<String, String> figures() {
		return this.figures;
	}

	public List<Violation> violations() {
		return this.violations;
	}

	public boolean passed() {
		return this.violations.isEmpty();
	}

	/** How many violations of each kind. */
	public Map<Violation.Kind, Integer> counts() {
		Map<Violation.Kind, Integer> counts = new EnumMap<>(Violation.Kind.class);
		this.violations.forEach((violation) -> counts.merge(violation.kind(), 1, Integer::sum));
		return counts;
	}

	public String render() {
		StringBuilder text = new StringBuilder("distlock torture run: ").append(this.description).append('\n');
		int width = this.figures.keySet().stream().mapToInt(String::length).max().orElse(0);
		this.figures.forEach((name, value) -> text.append("  ")
			.append(name)
			.append(" ".repeat(width - name.length()))
			.append("  ")
			.append(value)
			.append('\n'));
		if (this.violations.isEmpty()) {
			text.append("VIOLATIONS: none\n");
			return text.toString();
		}
		text.append("VIOLATIONS: ").append(this.violations.size()).append('\n');
		counts().forEach((kind, count) -> {
			text.append("  ").append(kind).append(" x").append(count).append(": ").append(kind.description())
				.append('\n');
			this.violations.stream()
				.filter((violation) -> violation.kind() == kind)
				.limit(EXAMPLES)
				.forEach((violation) -> text.append("    - ").append(violation.detail()).append('\n'));
		});
		return text.toString();
	}

	@Override
	public String toString() {
		return render();
	}

}
