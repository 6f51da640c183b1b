package io.github.distlock.sample.demo.processes;

import java.util.List;

import io.github.distlock.sample.demo.DemoSettings;

/** Prints the two-process demo's results as a plain-text table, with a line of verdict per scenario. */
final class ProcessDemoTable {

	private static final String ROW = "| %-28s | %4s | %5s | %8s | %20s |%n";

	private static final String RULE = "+" + "-".repeat(30) + "+" + "-".repeat(6) + "+" + "-".repeat(7) + "+"
			+ "-".repeat(10) + "+" + "-".repeat(22) + "+" + System.lineSeparator();

	private ProcessDemoTable() {
	}

	static String format(DemoSettings settings, List<ProcessScenarioResult> results) {
		StringBuilder table = new StringBuilder();
		table.append(String.format("Oversell demo, two processes: 2 shop JVMs, one Redis, one PostgreSQL;%n%d "
				+ "concurrent HTTP buyers, %d purchase attempts on '%s' with a stock of %d%n", settings.buyers(),
				settings.attempts(), settings.sku(), settings.stock()));
		table.append(RULE);
		table.append(String.format(ROW, "scenario", "sold", "stock", "oversold", "stale writes refused"));
		table.append(RULE);
		for (ProcessScenarioResult result : results) {
			table.append(String.format(ROW, result.scenario(), result.sold(), result.stockLeft(), result.oversold(),
					result.staleWritesRefused()));
		}
		table.append(RULE);
		for (ProcessScenarioResult result : results) {
			table.append(verdict(result)).append(System.lineSeparator());
		}
		return table.toString();
	}

	private static String verdict(ProcessScenarioResult result) {
		StringBuilder line = new StringBuilder(result.scenario()).append(": ");
		line.append((result.oversold() > 0 || !result.consistent()) ? "BROKEN, " : "correct, ")
			.append(result.sold())
			.append((result.sold() == 1) ? " order, " : " orders, ")
			.append(result.stockLeft())
			.append(" left of ")
			.append(result.initialStock());
		if (result.staleWritesRefused() > 0) {
			line.append(", ")
				.append(result.staleWritesRefused())
				.append((result.staleWritesRefused() == 1) ? " stale write" : " stale writes")
				.append(" refused by the fencing token");
		}
		if (result.busy() > 0) {
			line.append(", ").append(result.busy()).append(" answered 503 (lock busy for the whole wait)");
		}
		if (result.failed() > 0) {
			line.append(", ").append(result.failed()).append(" failed (see the shops' logs)");
		}
		return line.toString();
	}

}
