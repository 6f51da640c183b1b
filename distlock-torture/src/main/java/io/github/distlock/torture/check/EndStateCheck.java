package io.github.distlock.torture.check;

/**
 * Nothing is left behind: once the workers have stopped and any lease has run out, Redis holds no lock key.
 */
final class EndStateCheck implements Check {

	@Override
	public void check(RunRecords records, CheckReport report) {
		report.figure("lock keys left at the end", records.keysLeft().size());
		records.keysLeft().forEach((key) -> report.violation(Violation.Kind.KEYS_LEFT, key));
	}

}
