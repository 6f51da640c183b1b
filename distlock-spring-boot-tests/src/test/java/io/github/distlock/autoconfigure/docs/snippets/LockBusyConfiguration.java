package io.github.distlock.autoconfigure.docs.snippets;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

import io.github.distlock.LockFailureHandler;

/** The failure-handling page: a busy lock answered as HTTP 409, application-wide. */
@Configuration(proxyBeanMethods = false)
class LockBusyConfiguration {

	@Bean
	LockFailureHandler lockBusy() {
		return (failure, method, args) -> {
			throw new ResponseStatusException(HttpStatus.CONFLICT, failure.getMessage(), failure);
		};
	}

}
