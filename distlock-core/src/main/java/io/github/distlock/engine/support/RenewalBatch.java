package io.github.distlock.engine.support;

import java.util.ArrayList;
import java.util.List;

/**
 * Locks renewed by one call to the store, with the time to live each gets in milliseconds, counted from when the
 * call is sent.
 */
final class RenewalBatch<H extends LeasedLockHandle> {

	final List<H> handles = new ArrayList<>();

	final List<Long> ttls = new ArrayList<>();

	private RenewalBatch() {
	}

	/**
	 * The locks due, in calls of at most {@code batchSize}; a lock whose lease has less than a millisecond left when
	 * the call goes out is left out, as no store keeps a shorter time to live.
	 */
	static <H extends LeasedLockHandle> List<RenewalBatch<H>> split(List<H> due, int batchSize, long sentAt) {
		List<RenewalBatch<H>> batches = new ArrayList<>();
		RenewalBatch<H> batch = new RenewalBatch<>();
		for (H handle : due) {
			long ttl = handle.ttlMillisFrom(sentAt, handle.leaseNanos());
			if (ttl < 1) {
				continue;
			}
			if (batch.handles.size() == batchSize) {
				batches.add(batch);
				batch = new RenewalBatch<>();
			}
			batch.handles.add(handle);
			batch.ttls.add(ttl);
		}
		if (!batch.handles.isEmpty()) {
			batches.add(batch);
		}
		return batches;
	}

}
