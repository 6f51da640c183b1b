package io.github.distlock.autoconfigure.docs.snippets;

import org.springframework.stereotype.Service;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;

/** The failure-handling page: a fallback for a busy lock. */
@Service
class ReservationService {

	/** A reservation, made now or queued for later. */
	record Reservation(String sku, boolean queued) {

		static Reservation now(String sku) {
			return new Reservation(sku, false);
		}

		static Reservation queued(String sku) {
			return new Reservation(sku, true);
		}

	}

	@DistributedLock(key = "#sku", waitTime = "0s", fallback = "reserveLater")
	public Reservation reserve(String sku) { return Reservation.now(sku); }

	private Reservation reserveLater(String sku, LockAcquisitionException busy) {
		return Reservation.queued(sku);
	}

}
