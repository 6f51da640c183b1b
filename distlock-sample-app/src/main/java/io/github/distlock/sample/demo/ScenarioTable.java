package io.github.distlock.sample.demo;

import java.time.Duration;
import java.util.List;

/** Prints scenario results as a plain-text table. */
final class ScenarioTable {

	private static final String ROW = "| %-22s | %4s | %10s | %8s | %13s | %13s | %8s |%n";

	private ScenarioTable() {
	}

	static String format(DemoSettings settings, List<ScenarioResult> results) {
		StringBuilder table = new StringBuilder();
		table.append(String.format("Oversell demo: 2 application instances, %d concurrent buyers, %d purchase "
				+ "attempts on '%s' with a stock of %d%n", settings.buyers(), settings.attempts(), settings.sku(),
				settings.stock()));
		String rule = "+" + "-".repeat(24) + "+" + "-".repeat(6) + "+" + "-".repeat(12) + "+" + "-".repeat(10) + "+"
				+ "-".repeat(15) + "+" + "-".repeat(15) + "+" + "-".repeat(10) + "+" + System.lineSeparator();
		table.append(rule);
		table.append(String.format(ROW, "mode", "sold", "stock left", "oversold", "lock wait p50", "lock wait p99",
				"timeouts"));
		table.append(rule);
		for (ScenarioResult result : results) {
			table.append(String.format(ROW, result.mode(), result.sold(), result.stockLeft(), result.oversold(),
					millis(result, result.lockWaitP50()), millis(result, result.lockWaitP99()),
					result.locked() ? String.valueOf(result.timeouts()) : "-"));
		}
		table.append(rule);
		for (ScenarioResult result : results) {
			table.append(verdict(result)).append(System.lineSeparator());
		}
		return table.toString();
	}

	private static String millis(ScenarioResult result, Duration duration) {
		return result.locked() ? String.format("%.1f ms", duration.toNanos() / 1_000_000.0) : "-";
	}

	private static String verdict(ScenarioResult result) {
		StringBuilder line = new StringBuilder(result.mode()).append(": ");
		if (result.oversold() > 0 || !result.consistent()) {
			line.append("BROKEN, ").append(result.sold()).append(" orders for ").append(result.initialStock())
				.append(" items");
		}
		else {
			line.append("correct, ").append(result.sold()).append(" orders for ").append(result.initialStock())
				.append(" items");
		}
		if (result.staleTokens() > 0) {
			line.append(", ").append(result.staleTokens()).append(" stale writes refused by the fencing token");
		}
		if (result.errors() > 0) {
			line.append(", ").append(result.errors()).append(" failed attempts (see the log)");
		}
		return line.toString();
	}

}
