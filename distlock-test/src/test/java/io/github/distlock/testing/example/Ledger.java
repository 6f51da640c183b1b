package io.github.distlock.testing.example;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

/**
 * Bookings fenced by token: a booking with a token older than the last one accepted for the order is refused, so a
 * holder whose lock was taken over cannot write after the new holder.
 */
@Component
public class Ledger {

	private final Map<String, Long> lastTokens = new ConcurrentHashMap<>();

	/** @throws StaleTokenException if a booking with a newer token was accepted for the order */
	public void record(String orderId, long token) {
		this.lastTokens.merge(orderId, token, (last, next) -> {
			if (next < last) {
				throw new StaleTokenException(orderId, next, last);
			}
			return next;
		});
	}

}
