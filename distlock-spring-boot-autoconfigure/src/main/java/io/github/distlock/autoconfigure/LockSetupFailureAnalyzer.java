package io.github.distlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Puts a set-up that cannot lock ({@link LockSetupException}) at the top of Spring Boot's start-up report, as the
 * connection failures and invalid declarations are, instead of a stack trace through the bean being created.
 */
class LockSetupFailureAnalyzer extends AbstractFailureAnalyzer<LockSetupException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockSetupException cause) {
		return new FailureAnalysis(cause.description(), cause.action(), cause);
	}

}
