package io.github.distlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.github.distlock.LockDefinitionException;

/**
 * Puts an invalid {@code @DistributedLock} declaration at the top of Spring Boot's start-up report, as the connection
 * failures are: what is wrong and where as the description, what to change as the action, instead of a stack trace
 * through the bean that was being created.
 */
class LockDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<LockDefinitionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockDefinitionException cause) {
		return new FailureAnalysis(cause.getMessage(), "Correct the lock declared on " + cause.getMethod()
				+ ": the application does not start while a lock cannot work as declared.", cause);
	}

}
