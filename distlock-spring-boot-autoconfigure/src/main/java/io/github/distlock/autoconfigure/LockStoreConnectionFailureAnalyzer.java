package io.github.distlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.github.distlock.LockStoreConnectionException;

/**
 * Puts a failed connection to the lock store at the top of Spring Boot's start-up report: its cause as the
 * description, what to change as the action, however deep in the bean creation it was thrown.
 */
class LockStoreConnectionFailureAnalyzer extends AbstractFailureAnalyzer<LockStoreConnectionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockStoreConnectionException cause) {
		return new FailureAnalysis("distlock could not use its lock store. " + cause.getMessage(), cause.getAction(),
				cause);
	}

}
