package io.github.distlock.torture.check;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The fenced resource's own record, replayed: every accepted write must carry a token at least as large as every
 * write accepted before it for that resource, whatever the fence script answered at the time. A refused write
 * means a newer holder had already written, so its writer must have been told it lost the lock, with one exception
 * counted apart: in a run without replica acknowledgement, a holder whose lock a stale master granted and released
 * (after a failover, before it heard of it) cannot be told, since that master answers as if the lock were held. The
 * fence is then what keeps its writes out of order, and the figure says how often it had to.
 */
final class FenceCheck implements Check {

	@Override
	public void check(RunRecords records, CheckReport report) {
		Map<String, FenceWrite> highest = new HashMap<>();
		Map<String, Acquisition> byWriter = new HashMap<>();
		records.acquisitions().forEach((acquisition) -> byWriter.put(acquisition.writer(), acquisition));
		int accepted = 0;
		int rejected = 0;
		int outOfOrder = 0;
		int rejectedOfKilled = 0;
		int staleMaster = 0;
		for (FenceWrite write : records.fenceWrites()) {
			if (!write.accepted()) {
				rejected++;
				Acquisition writer = byWriter.get(write.writer());
				if (writer != null && writer.ending() == null && records.killOf(writer.worker()).isPresent()) {
					rejectedOfKilled++;
				}
				else if (writer != null && !records.reportedLost(writer) && grantedByAStaleMaster(records, writer)) {
					staleMaster++;
				}
				else if (writer == null || !records.reportedLost(writer)) {
					report.violation(Violation.Kind.FENCE_REJECTION_UNNOTICED, "the " + write.phase() + " write of "
							+ Optional.ofNullable(writer).map(Acquisition::toString).orElse(write.writer())
							+ " was refused, yet its holder was never told it lost the lock");
				}
				continue;
			}
			accepted++;
			FenceWrite before = highest.get(write.resource());
			if (before != null && write.token() < before.token()) {
				outOfOrder++;
				report.violation(Violation.Kind.FENCE_OUT_OF_ORDER, "accepted the " + write.phase() + " write of "
						+ write.writer() + " with token " + write.token() + " after that of " + before.writer()
						+ " with token " + before.token() + " on " + write.resource());
			}
			else {
				highest.put(write.resource(), write);
			}
		}
		report.figure("fence writes", records.fenceWrites().size() + ": accepted " + accepted + ", rejected "
				+ rejected + " (" + rejectedOfKilled + " from killed workers, " + staleMaster + " unnoticed on a stale "
				+ "master without replica acknowledgement), accepted out of token order " + outOfOrder);
	}

	/**
	 * Held while a failover left a stale master behind, in a run whose workers asked no replica to acknowledge a
	 * grant: with an acknowledgement a stale master, which has no replica, grants nothing, so there the exception
	 * does not apply.
	 */
	private static boolean grantedByAStaleMaster(RunRecords records, Acquisition held) {
		if (records.parameters().replicasAcked() > 0) {
			return false;
		}
		long end = (held.ending() != null) ? held.ending().endNanos() : records.parameters().loadEndNanos();
		return records.faults()
			.stream()
			.anyMatch((fault) -> fault.leavesAStaleMaster() && fault.overlaps(held.startNanos(), end));
	}

}
