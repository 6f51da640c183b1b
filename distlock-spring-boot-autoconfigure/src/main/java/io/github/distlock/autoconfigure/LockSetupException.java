package io.github.distlock.autoconfigure;

/**
 * distlock's set-up cannot lock as the application is configured (no engine, several, AspectJ mode that nothing
 * wove): start-up stops with what is wrong and what to do, which {@link LockSetupFailureAnalyzer} puts at the top of
 * Spring Boot's report. The message holds both, for logs that show no report.
 */
final class LockSetupException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String description;

	private final String action;

	LockSetupException(String description, String action) {
		super(description + " " + action);
		this.description = description;
		this.action = action;
	}

	String description() {
		return this.description;
	}

	String action() {
		return this.action;
	}

}
