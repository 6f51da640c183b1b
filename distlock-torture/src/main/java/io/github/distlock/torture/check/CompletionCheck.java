package io.github.distlock.torture.check;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Every acquisition ends: released, or reported lost. Only a killed worker may leave one open, and then the lock
 * server must free its lock within one lease of the kill (ZooKeeper: within the session timeout, if longer), which the
 * keyspace notifications (a {@code del} or an {@code expired}) or the next holder's acquisition show.
 */
final class CompletionCheck implements Check {

	@Override
	public void check(RunRecords records, CheckReport report) {
		for (String worker : records.parameters().workers()) {
			if (!records.finishedWorkers().contains(worker) && records.killOf(worker).isEmpty()) {
				report.violation(Violation.Kind.WORKER_UNFINISHED, worker);
			}
		}
		int abandoned = 0;
		long slowestFree = 0;
		for (Acquisition acquisition : records.acquisitions()) {
			if (acquisition.ending() != null) {
				continue;
			}
			Optional<FaultRecord> kill = records.killOf(acquisition.worker());
			if (kill.isEmpty()) {
				if (!records.reportedLost(acquisition)) {
					report.violation(Violation.Kind.UNRELEASED, acquisition + " acquired at "
							+ Check.at(records, acquisition.acquiredNanos()));
				}
				continue;
			}
			abandoned++;
			OptionalLong freed = freedAt(records, acquisition, kill.get());
			long bound = kill.get().startNanos() + records.parameters().deadHolderBoundNanos();
			if (freed.isEmpty() || freed.getAsLong() - bound > 0) {
				report.violation(Violation.Kind.KILLED_HOLDER_LOCK_KEPT, acquisition + " held when " + kill.get()
						+ " was killed at " + Check.at(records, kill.get().startNanos()) + (freed.isPresent()
								? "; freed only at " + Check.at(records, freed.getAsLong()) : "; never freed"));
			}
			else {
				slowestFree = Math.max(slowestFree, freed.getAsLong() - kill.get().startNanos());
			}
		}
		Duration session = records.parameters().sessionTimeout();
		report.figure("held by killed workers", abandoned + " acquisitions, freed at most " + Check.millis(
				slowestFree) + " after the kill (lease " + records.parameters().lease().toMillis() + " ms"
				+ (session.isZero() ? "" : ", session " + session.toMillis() + " ms") + ")");
	}

	/** The first sign after the acquisition that its lock was gone: a del, an expiry or someone else's acquisition. */
	private static OptionalLong freedAt(RunRecords records, Acquisition acquisition, FaultRecord kill) {
		String redisKey = records.parameters().redisKeyOf(acquisition.key());
		OptionalLong notified = records.keyspace()
			.stream()
			.filter((event) -> redisKey.equals(event.key()) && List.of("del", "expired").contains(event.op())
					&& event.nanos() - acquisition.acquiredNanos() > 0)
			.mapToLong(KeyspaceEvent::nanos)
			.min();
		OptionalLong taken = records.acquisitions()
			.stream()
			.filter((other) -> other.key().equals(acquisition.key()) && other.token() > acquisition.token())
			.mapToLong(Acquisition::acquiredNanos)
			.min();
		if (notified.isPresent() && taken.isPresent()) {
			return OptionalLong.of(Math.min(notified.getAsLong(), taken.getAsLong()));
		}
		return notified.isPresent() ? notified : taken;
	}

}
