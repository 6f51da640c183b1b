package io.github.distlock.torture.check;

import java.nio.file.Path;
import java.util.List;

/**
 * The checker, a program of its own: reads a run directory and reports figures and violations. It trusts only
 * the records (histories, fence log, keyspace notifications, faults, final keys), never the library.
 * <p>
 * {@code java -cp ... io.github.distlock.torture.check.TortureChecker <run directory>} prints the report and exits
 * with 1 when there is a violation.
 */
public final class TortureChecker {

	private static final List<Check> CHECKS = List.of(new Totals(), new OverlapCheck(), new ToldBeforeOverlapCheck(),
			new TokenOrderCheck(), new FenceCheck(), new CompletionCheck(), new LossJustificationCheck(),
			new TimingCheck(), new EndStateCheck());

	private TortureChecker() {
	}

	public static CheckReport check(Path runDirectory) {
		return check(RunRecordsReader.read(runDirectory));
	}

	public static CheckReport check(RunRecords records) {
		CheckReport report = new CheckReport(records.parameters().description());
		CHECKS.forEach((check) -> check.check(records, report));
		return report;
	}

	public static void main(String[] args) {
		if (args.length != 1) {
			System.err.println("Usage: TortureChecker <run directory>");
			System.exit(2);
		}
		CheckReport report = check(Path.of(args[0]));
		System.out.print(report.render());
		System.exit(report.passed() ? 0 : 1);
	}

}
