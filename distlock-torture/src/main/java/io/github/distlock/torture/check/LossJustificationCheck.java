package io.github.distlock.torture.check;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every loss the library reports must be real, or at least forced: a lock reported lost that was not is a false
 * alarm, which makes an application abandon work it was entitled to finish, as serious a defect as a loss left
 * unreported. A report ({@code lost_reported}: worker, key, token, reason, time) is justified by either ground:
 * <ol>
 * <li><b>a fault that can take a lock from a live holder</b>, for the reported reason, under way at some moment
 * between the call's start and the report: for {@code NOT_OWNED} and {@code STORE_UNREACHABLE}, the lock server
 * paused or restarted, or the holder's own worker paused or starved of CPU (its renewals could not go out in time),
 * by the injector or by anything else, as long as the worker saw itself stall for two thirds of a lease
 * ({@link RunRecords#longStall});
 * but a ZooKeeper server restarted on its data keeps every session and node, so it justifies
 * {@code STORE_UNREACHABLE} (a lease that ran out before the client was back) and never {@code NOT_OWNED}.
 * The same goes for a leader killed in an etcd cluster or a ZooKeeper ensemble ({@code leader_kill}), from how both
 * work: a lock is a key or a node written through the leader and answered only once a majority has it, so the
 * survivors, which are a majority, have every lock granted; and only the leader ends a session or a lease, while a new
 * leader starts every clock afresh (ZooKeeper's leader tracks each session of its data tree with its full timeout;
 * etcd's new leader extends each lease by its time to live). So a lock can be lost to the kill only on the client's
 * side: the engine confirms every lock within its lease (a second here), and a call in flight during the election
 * and the reconnection (on ZooKeeper the followers drop their clients until they have a new leader; on etcd a
 * member holds a proposal for a dead leader) may leave it unconfirmed past that, which the engine reports as
 * {@code STORE_UNREACHABLE}, as it promises. {@code NOT_OWNED}, which says the store no longer has the lock, is a
 * false alarm unless the ensemble was left without a leader for longer than the workers' sessions (etcd: instance
 * leases) last, which the injector records ({@code elected-after-N-ms}) and which a three-member ensemble with two
 * survivors does not come near (its elections took 0.5–1.9 s against 4 s of session). A real loss across the
 * kill is still justified by the second ground (a newer holder, a fence refusal), so this keeps false alarms
 * detectable without excusing any loss the records show.
 * No fault justifies {@code LEASE_EXPIRED}, which means a lease ran out by design: the workers' locks renew and have
 * no ceiling. A connection kill justifies nothing: a client reconnects within a fraction of a lease, so a killed
 * connection alone must never cost a lock whose lease still runs;</li>
 * <li><b>a record showing the lock gone before the report</b>: an {@code expired} notification of its key after
 * the section learnt it held the lock (for {@code NOT_OWNED}, up to {@link #NOTICE_LAG} after the report too: the
 * server published the expiry before answering, the recorder only stamped it later); a {@code del} of its key
 * before its own release began; an acquisition of the key with a larger token before the report and before that
 * release; or a fence refusal of the section's writes, if the report came after the section ended (so the writes
 * came before it). This ground does not count when a connection kill struck during the call or up to a settling
 * time before it: a lock that really lapsed because its renewals met killed connections was still lost to a
 * connection kill.</li>
 * </ol>
 * Evidence after the report is not accepted otherwise: once the library gives a lock up it stops renewing it, so
 * an expiry or a new holder afterwards is the consequence of the report, not its cause.
 */
final class LossJustificationCheck implements Check {

	/** How much later than the server the keyspace recorder may stamp an expiry, on a busy machine. */
	static final long NOTICE_LAG = TimeUnit.MILLISECONDS.toNanos(250);

	private static final List<String> LOCK_TAKING_REASONS = List.of("NOT_OWNED", "STORE_UNREACHABLE");

	/**
	 * A loss reported no later than this after the section learnt it held the lock was lost on arrival: granted with
	 * its lease already run out (an answer held up longer than a lease), rather than lost while it was held.
	 */
	static final long ON_ARRIVAL = TimeUnit.MILLISECONDS.toNanos(10);

	@Override
	public void check(RunRecords records, CheckReport report) {
		Map<String, Integer> grounds = new TreeMap<>();
		Map<String, Integer> shown = new TreeMap<>();
		Map<String, Integer> onArrival = new TreeMap<>();
		int justified = 0;
		for (LossReport loss : records.lossReports()) {
			Optional<Acquisition> acquisition = acquisitionOf(records, loss);
			acquisition.filter((held) -> loss.nanos() - held.acquiredNanos() <= ON_ARRIVAL)
				.ifPresent((held) -> onArrival.merge(loss.reason(), 1, Integer::sum));
			Optional<String> ground = acquisition.flatMap((held) -> ground(records, loss, held));
			if (ground.isPresent()) {
				justified++;
				grounds.merge(ground.get(), 1, Integer::sum);
			}
			else {
				report.violation(Violation.Kind.LOSS_UNJUSTIFIED, describe(records, loss, acquisition));
			}
			acquisition.flatMap((held) -> record(records, loss, held))
				.ifPresent((record) -> shown.merge(record, 1, Integer::sum));
		}
		report.figure("losses justified", justified + " of " + records.lossReports().size() + " " + grounds);
		// How many were seen gone, rather than only put at risk by a fault: for people, not a rule.
		report.figure("losses the records show", shown.values().stream().mapToInt(Integer::intValue).sum() + " of "
				+ records.lossReports().size() + " " + shown);
		// Granted already lost: the call refused to start its section (or, for a loss found just after the call
		// went in, the section learnt of it at once). Not a rule either.
		report.figure("losses on arrival", onArrival.values().stream().mapToInt(Integer::intValue).sum() + " of "
				+ records.lossReports().size() + " reported within " + Check.millis(ON_ARRIVAL)
				+ " of the section learning it held the lock " + onArrival);
	}

	/** The first ground found: a fault, else (unless a connection kill was near) a record. */
	private static Optional<String> ground(RunRecords records, LossReport loss, Acquisition held) {
		Optional<String> fault = fault(records, loss, held);
		if (fault.isPresent() || connectionKill(records, loss, held).isPresent()) {
			return fault;
		}
		return record(records, loss, held);
	}

	/** The call the loss was reported to: one that held the lock, or one that refused a grant lost on arrival. */
	private static Optional<Acquisition> acquisitionOf(RunRecords records, LossReport loss) {
		return Stream.concat(records.acquisitions().stream(), records.lostOnArrival().stream())
			.filter((held) -> held.worker().equals(loss.worker()) && held.key().equals(loss.key())
					&& held.token() == loss.token())
			.findFirst();
	}

	/** The first fault that can take a lock for the reported reason, named for the figures. */
	private static Optional<String> fault(RunRecords records, LossReport loss, Acquisition held) {
		if (!LOCK_TAKING_REASONS.contains(loss.reason())) {
			return Optional.empty();
		}
		return records.faults()
			.stream()
			.filter((fault) -> fault.overlaps(held.startNanos(), loss.nanos()))
			.filter((fault) -> (fault.isStoreFault()
					&& fault.canCostALockAs(loss.reason(), records.parameters().sessionTimeout()))
					|| fault.strikes(loss.worker(), "worker_pause") || fault.strikes(loss.worker(), "worker_starve"))
			.findFirst()
			.map((fault) -> fault.isStoreFault() ? fault.kind() : "own " + fault.kind())
			.or(() -> records.longStall(loss.worker(), held.startNanos(), loss.nanos()).map((stall) -> "own stall"));
	}

	/** A connection kill that struck during the call, or recently enough before it for its effects to last. */
	private static Optional<FaultRecord> connectionKill(RunRecords records, LossReport loss, Acquisition held) {
		long settle = records.parameters().settleNanos();
		return records.faults()
			.stream()
			.filter((fault) -> fault.isConnectionKill() && fault.startNanos() - loss.nanos() <= 0
					&& held.startNanos() - (fault.endNanos() + settle) <= 0)
			.findFirst();
	}

	/** The first record that shows the lock gone before the report, named for the figures. */
	private static Optional<String> record(RunRecords records, LossReport loss, Acquisition held) {
		String redisKey = records.parameters().redisKeyOf(held.key());
		long beforeRelease = (held.ending() != null) ? Math.min(loss.nanos(), held.ending().endNanos()) : loss.nanos();
		long expiredBy = loss.nanos() + ("NOT_OWNED".equals(loss.reason()) ? NOTICE_LAG : 0);
		for (KeyspaceEvent event : records.keyspace()) {
			if (!redisKey.equals(event.key()) || event.nanos() - held.acquiredNanos() < 0) {
				continue;
			}
			if ("expired".equals(event.op()) && event.nanos() - expiredBy <= 0) {
				return Optional.of("expired");
			}
			if ("del".equals(event.op()) && event.nanos() - beforeRelease <= 0) {
				return Optional.of("deleted");
			}
		}
		boolean taken = records.acquisitions()
			.stream()
			.anyMatch((other) -> other.key().equals(held.key()) && other.token() > held.token()
					&& other.acquiredNanos() - beforeRelease <= 0);
		if (taken) {
			return Optional.of("newer holder");
		}
		boolean afterSection = held.ending() != null && loss.nanos() - held.ending().endNanos() >= 0;
		return (afterSection && records.fencedOff(held)) ? Optional.of("fence refusal") : Optional.empty();
	}

	private static String describe(RunRecords records, LossReport loss, Optional<Acquisition> acquisition) {
		String what = loss.worker() + " told " + loss.reason() + " for " + loss.key() + " token " + loss.token()
				+ " at " + Check.at(records, loss.nanos());
		if (acquisition.isEmpty()) {
			return what + ": no acquisition with that token in its history";
		}
		Acquisition held = acquisition.get();
		String faults = records.faults()
			.stream()
			.filter((fault) -> fault.startNanos() - loss.nanos() <= 0
					&& held.startNanos() - (fault.endNanos() + records.parameters().settleNanos()) <= 0)
			.map((fault) -> fault + " " + Check.at(records, fault.startNanos()) + " to "
					+ Check.at(records, fault.endNanos()))
			.collect(Collectors.joining(", "));
		// Shorter stalls justify nothing, but tell people where to look.
		String stalls = records.stalls()
			.stream()
			.filter((stall) -> stall.worker().equals(loss.worker()) && stall.overlaps(held.startNanos(), loss.nanos()))
			.map((stall) -> Check.millis(stall.lengthNanos()) + " at " + Check.at(records, stall.fromNanos()))
			.collect(Collectors.joining(", "));
		return what + " (call " + held.writer() + " started " + Check.at(records, held.startNanos()) + ", held from "
				+ Check.at(records, held.acquiredNanos()) + (held.ending() != null ? ", section ended "
						+ Check.at(records, held.ending().endNanos()) + ", " + held.ending().outcome() : "")
				+ "): nothing shows the lock gone before, and no fault could take it"
				+ (faults.isEmpty() ? "; no fault near" : "; faults near: " + faults)
				+ (stalls.isEmpty() ? "" : "; its worker stalled " + stalls);
	}

}
