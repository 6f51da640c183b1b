package io.github.distlock.sample.web;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.sample.shop.NotFoundException;
import io.github.distlock.sample.shop.StaleTokenException;

/** Turns the shop's failures into HTTP problems. */
@RestControllerAdvice
public class ShopExceptionHandler {

	@ExceptionHandler
	ProblemDetail notFound(NotFoundException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	/**
	 * A write refused by the fencing token: the same reply as any other purchase that changed nothing, with the
	 * token that was refused.
	 */
	@ExceptionHandler
	ResponseEntity<PurchaseResponse> staleToken(StaleTokenException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT).body(PurchaseResponse.staleToken(ex));
	}

	/**
	 * Others held the lock for the whole wait, or Redis could not be reached: nothing was changed and the request
	 * may be repeated, which is what 503 with Retry-After tells a client.
	 */
	@ExceptionHandler
	ResponseEntity<ProblemDetail> lockNotAcquired(LockAcquisitionException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				ex.isStoreUnavailable() ? "The lock store is unavailable; nothing was changed"
						: "Too many buyers for '" + ex.getLockKey() + "' right now; nothing was changed");
		problem.setTitle("Lock not acquired");
		problem.setProperty("lock", ex.getLockName() + ":" + ex.getLockKey());
		problem.setProperty("waitedMillis", ex.getWaited().toMillis());
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
	}

}
