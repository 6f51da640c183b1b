package io.github.distlock.autoconfigure;

import java.time.Duration;

/**
 * Settings of the database engine, under {@code distlock.jdbc.*}.
 */
public class JdbcLockProperties {

	/**
	 * Name of the lock table, optionally schema-qualified.
	 */
	private String tableName = "distlock_locks";

	/**
	 * Whether to create the lock table at start-up when it does not exist (with the DDL shipped in
	 * distlock-jdbc). Off by default: most teams create tables with their migration tool.
	 */
	private boolean initializeSchema = false;

	/**
	 * How often a waiting caller asks the table again. Callers waiting in the same application are woken at
	 * once by its own releases.
	 */
	private Duration pollInterval = Duration.ofMillis(100);

	/**
	 * Longest time one lock statement may take (whole seconds, at least one).
	 */
	private Duration statementTimeout = Duration.ofSeconds(5);

	public String getTableName() {
		return this.tableName;
	}

	public void setTableName(String tableName) {
		this.tableName = tableName;
	}

	public boolean isInitializeSchema() {
		return this.initializeSchema;
	}

	public void setInitializeSchema(boolean initializeSchema) {
		this.initializeSchema = initializeSchema;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = DurationSettings.positive("distlock.jdbc.poll-interval", pollInterval);
	}

	public Duration getStatementTimeout() {
		return this.statementTimeout;
	}

	public void setStatementTimeout(Duration statementTimeout) {
		this.statementTimeout = DurationSettings.positive("distlock.jdbc.statement-timeout", statementTimeout);
	}

}
