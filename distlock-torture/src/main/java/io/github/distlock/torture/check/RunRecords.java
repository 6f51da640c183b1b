package io.github.distlock.torture.check;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Everything a run left behind, read back: the workers' histories, the fence's log, the keyspace notifications,
 * the faults and the locks still in the store at the end.
 *
 * @param parameters the run's settings
 * @param acquisitions every acquisition, in no particular order
 * @param timeouts every call that did not get its lock
 * @param failures calls that failed before holding the lock, for another reason than a timeout
 * @param lossReports every loss reported to a listener
 * @param finishedWorkers the workers whose history ends with {@code finished}
 * @param fenceWrites the fence's log, in the order the fence ran the writes
 * @param keyspace the keyspace recorder's events, in arrival order
 * @param faults the faults injected, in order
 * @param keysLeft locks still in the store (Redis keys, table rows, ZooKeeper nodes) after the workers stopped and
 * leases ran out
 * @param stalls the times the workers' JVMs did not run, as each saw it, in no particular order
 * @param lostOnArrival calls granted their lock with its lease already run out, which refused to start their section:
 * they held nothing, so no check of holders sees them; their {@code acquiredNanos} is when the call refused
 */
public record RunRecords(RunParameters parameters, List<Acquisition> acquisitions, List<Timeout> timeouts,
		List<String> failures, List<LossReport> lossReports, Set<String> finishedWorkers,
		List<FenceWrite> fenceWrites, List<KeyspaceEvent> keyspace, List<FaultRecord> faults, List<String> keysLeft,
		List<Stall> stalls, List<Acquisition> lostOnArrival) {

	/** The kill of a worker, if it was killed. */
	public Optional<FaultRecord> killOf(String worker) {
		return this.faults.stream().filter((fault) -> fault.strikes(worker, "worker_kill")).findFirst();
	}

	/**
	 * Whether a fault stopped or starved this worker at some moment between the two times: its clock kept running
	 * while it could not, or could only crawl.
	 */
	public boolean stalledBetween(String worker, long fromNanos, long toNanos) {
		return this.faults.stream()
			.anyMatch((fault) -> (fault.strikes(worker, "worker_pause") || fault.strikes(worker, "worker_starve"))
					&& fault.overlaps(fromNanos, toNanos))
				|| longStall(worker, fromNanos, toNanos).isPresent();
	}

	/** Whether a stall lasted long enough to cost its worker a lock by itself (see {@link #longStall}). */
	public boolean isLong(Stall stall) {
		return stall.lengthNanos() >= this.parameters.lease().toNanos() * 2 / 3;
	}

	/**
	 * A stall of the worker's own JVM between the two times long enough to cost it a lock by itself: at least two
	 * thirds of a lease, the time from a renewal falling due to the lease running out.
	 */
	public Optional<Stall> longStall(String worker, long fromNanos, long toNanos) {
		return this.stalls.stream()
			.filter((stall) -> stall.worker().equals(worker) && isLong(stall)
					&& stall.overlaps(fromNanos, toNanos))
			.findFirst();
	}

	/**
	 * When the lock server came back from the last stop or outage that held up calls ({@link FaultRecord#holdsUpCalls})
	 * and was under way at some moment between the two times; the start itself if there was none. A call under way
	 * then is timed from there.
	 */
	public long heldUpUntil(long fromNanos, long toNanos) {
		long until = fromNanos;
		for (FaultRecord fault : this.faults) {
			if (fault.holdsUpCalls() && fault.overlaps(fromNanos, toNanos) && fault.endNanos() - until > 0) {
				until = fault.endNanos();
			}
		}
		return until;
	}

	/**
	 * The fault whose effects may still show in this span, if any. Connection kills are not among them: they take
	 * no lock, so they excuse no overlap.
	 */
	public Optional<FaultRecord> faultAround(long fromNanos, long toNanos) {
		long settle = this.parameters.settleNanos();
		return this.faults.stream()
			.filter((fault) -> !fault.isConnectionKill())
			.filter((fault) -> fault.startNanos() - toNanos <= 0 && fromNanos - (fault.endNanos() + settle) <= 0)
			.findFirst();
	}

	/** Whether the library told the worker of this acquisition that it lost the lock. */
	public boolean reportedLost(Acquisition acquisition) {
		if (acquisition.ending() != null && acquisition.ending().lost()) {
			return true;
		}
		return this.lossReports.stream()
			.anyMatch((report) -> report.worker().equals(acquisition.worker())
					&& report.key().equals(acquisition.key()) && report.token() == acquisition.token());
	}

	/** When the library first told this acquisition's worker that it lost the lock, if it ever did. */
	public OptionalLong toldLostAt(Acquisition acquisition) {
		return this.lossReports.stream()
			.filter((report) -> report.worker().equals(acquisition.worker()) && report.key().equals(acquisition.key())
					&& report.token() == acquisition.token())
			.mapToLong(LossReport::nanos)
			.min();
	}

	/**
	 * A fault that drops held locks from the store (see {@link FaultRecord#dropsHeldLocks}) begun less than a lease
	 * before this moment: a lock taken then may have been dropped before its holder's lease could run out.
	 */
	public Optional<FaultRecord> keysDroppedShortlyBefore(long nanos) {
		long lease = this.parameters.lease().toNanos();
		return this.faults.stream()
			.filter((fault) -> fault.dropsHeldLocks() && fault.startNanos() - nanos <= 0
					&& nanos - (fault.endNanos() + lease) < 0)
			.findFirst();
	}

	/** Whether the fence refused a write of this acquisition. */
	public boolean fencedOff(Acquisition acquisition) {
		return this.fenceWrites.stream()
			.anyMatch((write) -> !write.accepted() && write.writer().equals(acquisition.writer()));
	}

	/**
	 * Until when the worker believed it held this lock: to the end of its section, as recorded when it ended (before
	 * the release) or when the call returned; for a killed worker's call inside its section, to the kill; for a call
	 * that never ended otherwise, to the end of the records.
	 */
	public long believedUntil(Acquisition acquisition) {
		if (acquisition.ending() != null) {
			return acquisition.ending().endNanos();
		}
		if (acquisition.leftNanos() != 0) {
			return acquisition.leftNanos();
		}
		return killOf(acquisition.worker()).map(FaultRecord::startNanos).orElse(lastNanos());
	}

	/** The last moment anything was recorded. */
	public long lastNanos() {
		long last = this.parameters.loadEndNanos();
		for (Acquisition acquisition : this.acquisitions) {
			if (acquisition.ending() != null) {
				last = Math.max(last, acquisition.ending().returnedNanos());
			}
			last = Math.max(last, acquisition.acquiredNanos());
		}
		return last;
	}

	/** Acquisitions by lock key. */
	public Map<String, List<Acquisition>> byKey() {
		return this.acquisitions.stream()
			.collect(Collectors.groupingBy(Acquisition::key, TreeMap::new, Collectors.toList()));
	}

}
