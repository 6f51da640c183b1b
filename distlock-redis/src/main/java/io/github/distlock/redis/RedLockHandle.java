package io.github.distlock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LostLock;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.support.HandleLife;
import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * A RedLock: one lock on each of a majority (or more) of the masters, its parts, each renewed by its own master's
 * engine. The lock is held while a majority of its parts are; it is lost when the loss of a part leaves fewer, with
 * that part's reason. A part lost while a majority still holds is no loss of the caller's, and nobody hears of it.
 */
final class RedLockHandle implements LockHandle {

	private final RedLockEngine engine;

	private final String name;

	private final String key;

	private final long token;

	private final String holder;

	private final long acquiredAtNanos;

	private final int majority;

	/** The parts: one on each master that granted the lock, a majority or more, each its master engine's handle. */
	private final List<LeasedLockHandle> parts;

	private final HandleLife life = new HandleLife();

	/** Whether the caller has this lock: until then a loss stops the hand-out instead of being reported. */
	private boolean handedOut;

	RedLockHandle(RedLockEngine engine, String name, String key, long token, String holder, long acquiredAtNanos,
			int majority, List<LeasedLockHandle> parts) {
		this.engine = engine;
		this.name = name;
		this.key = key;
		this.token = token;
		this.holder = holder;
		this.acquiredAtNanos = acquiredAtNanos;
		this.majority = majority;
		this.parts = parts;
	}

	/** Starts listening for the loss of parts; before this the handle is not handed out. */
	void watchParts() {
		for (LeasedLockHandle part : this.parts) {
			part.whenLost(() -> partLost(part));
		}
	}

	/**
	 * Gives the lock to the caller, if a majority of its parts still holds it.
	 * @return false when too many parts were lost since they were granted: the caller must not have it
	 */
	synchronized boolean handOut() {
		if (!this.life.isHeld() || heldParts() < this.majority) {
			return false;
		}
		this.handedOut = true;
		return true;
	}

	/**
	 * Runs in the part's loss actions, on whichever thread found that part lost and under that part's reporting lock:
	 * nothing here may wait for another part's (see {@link #heldParts()}).
	 */
	private void partLost(LockHandle part) {
		synchronized (this) {
			if (!this.handedOut || heldParts() >= this.majority) {
				return;
			}
		}
		// A part's loss actions run once its reason is set; NOT_OWNED stands in should an engine not say.
		LostLock.Reason reason = part.lossReason();
		lose((reason != null) ? reason : LostLock.Reason.NOT_OWNED);
	}

	/** Marks the lock lost and reports it, once; then lets go of the parts still held. */
	private void lose(LostLock.Reason reason) {
		if (this.life.lose(reason, () -> this.engine.report(this, reason))) {
			this.engine.letGoOfParts(this);
		}
	}

	/**
	 * How many parts are held now: neither lost nor released, with their leases still running by this process's
	 * clock. Read from their states and deadlines alone, without asking a part whether it is lost: that would report,
	 * there and then and under that part's reporting lock, a part whose lease ran out unnoticed so far. This runs in
	 * another part's loss actions, under that part's lock, and two masters' watchdog threads, each reporting a part of
	 * this lock as the lease ran out, each asked about the other's part; each waited for the other's lock, for good,
	 * and neither master's watchdog renewed or reported anything any more.
	 */
	int heldParts() {
		long now = System.nanoTime();
		int held = 0;
		for (LeasedLockHandle part : this.parts) {
			if (part.isHeld() && !part.leaseRanOut(now)) {
				held++;
			}
		}
		return held;
	}

	/** The parts, one per master that granted the lock. */
	List<LeasedLockHandle> parts() {
		return this.parts;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public long token() {
		return this.token;
	}

	/**
	 * Until when a majority of the masters is known to keep the lock: the majority-th latest of the held parts'
	 * deadlines (each leaves out the allowance for clock drift).
	 */
	@Override
	public long leaseDeadlineNanos() {
		// Held by their states alone (see heldParts()); a part whose lease ran out unnoticed brings its past deadline.
		long[] deadlines = this.parts.stream()
			.filter(LeasedLockHandle::isHeld)
			.mapToLong(LeasedLockHandle::leaseDeadlineNanos)
			.toArray();
		if (deadlines.length < this.majority) {
			return this.acquiredAtNanos;
		}
		// Sorted by their distance from one point, so that nanoTime's overflow cannot reorder them.
		long origin = this.acquiredAtNanos;
		long[] offsets = Arrays.stream(deadlines).map((deadline) -> deadline - origin).sorted().toArray();
		return origin + offsets[offsets.length - this.majority];
	}

	@Override
	public LostLock.@Nullable Reason lossReason() {
		noticeLeaseRunOut();
		return this.life.lossReason();
	}

	/**
	 * Whether the lock is lost: too few parts held, or the majority's lease ({@link #leaseDeadlineNanos()}) run out by
	 * this process's clock, which is reported here and now if nobody has yet; no master's late answer is waited for.
	 */
	@Override
	public boolean isLost() {
		noticeLeaseRunOut();
		return this.life.isLost();
	}

	private void noticeLeaseRunOut() {
		if (!this.life.isHeld() || System.nanoTime() - leaseDeadlineNanos() < 0) {
			return;
		}
		synchronized (this) {
			if (!this.handedOut) {
				return;
			}
		}
		lose(runOutReason());
	}

	/** Why the majority's lease ran out: by design when its parts are not renewed, else their masters did not answer. */
	private LostLock.Reason runOutReason() {
		for (LeasedLockHandle part : this.parts) {
			if (!part.renewalEnded()) {
				return LostLock.Reason.STORE_UNREACHABLE;
			}
		}
		return LostLock.Reason.LEASE_EXPIRED;
	}

	boolean isHeld() {
		return this.life.isHeld();
	}

	@Override
	public void whenLost(Runnable action) {
		this.life.whenLost(action);
	}

	/**
	 * Asks every held part's master at once; the lock is ours while a majority says so. A part found not owned is
	 * lost (and, when that leaves too few, so is this lock, reported once).
	 */
	@Override
	public boolean verify() {
		if (isLost() || !isHeld()) {
			this.life.awaitLossReport();
			return false;
		}
		boolean owned = askHeldParts(LockHandle::verify) >= this.majority;
		if (!owned) {
			lose(LostLock.Reason.NOT_OWNED);
		}
		return owned && !isLost() && isHeld();
	}

	@Override
	public boolean extend(Duration ttl) {
		Leases.requireLease(ttl, "ttl");
		if (!isHeld()) {
			return false;
		}
		return askHeldParts((part) -> part.extend(ttl)) >= this.majority && isHeld();
	}

	@Override
	public boolean release() {
		return end((part) -> part.release());
	}

	@Override
	public boolean releaseAfter(Duration ttl) {
		Leases.requireLease(ttl, "ttl");
		return end((part) -> part.releaseAfter(ttl));
	}

	/**
	 * Releases (now or later) every part at once. Released on a majority, the lock was ours; owned by fewer even if
	 * every unanswered master still held it, it was lost while held, and that is reported. In between, nobody can
	 * tell: the parts not released expire with their leases, and the caller hears why; begun within the majority's
	 * lease, that is no loss, as nobody else can hold the lock before that lease ends.
	 */
	private boolean end(PartCall ending) {
		// A majority's lease already run out by the holder's clock is a loss, not a release.
		noticeLeaseRunOut();
		if (!this.life.beginRelease()) {
			this.life.awaitLossReport();
			return false;
		}
		this.engine.forget(this);
		List<RedLockMasters.Answer<Boolean>> answers = ask(ending);
		int released = 0;
		int unanswered = 0;
		for (RedLockMasters.Answer<Boolean> answer : answers) {
			if (answer.is(Boolean.TRUE)) {
				released++;
			}
			else if (answer.failure() != null) {
				unanswered++;
			}
		}
		if (released >= this.majority) {
			this.life.markReleased();
			return true;
		}
		if (released + unanswered >= this.majority) {
			String why = this + " was released on " + released + " of the " + this.engine.masterCount()
					+ " Redis masters, and " + unanswered + " did not answer: RedLock needs " + this.majority
					+ " to tell. The parts not released expire with their leases.";
			this.life.markReleased();
			throw new RedLockQuorumException(why, released, this.majority);
		}
		if (this.life.loseAtRelease(LostLock.Reason.NOT_OWNED,
				() -> this.engine.report(this, LostLock.Reason.NOT_OWNED))) {
			this.engine.letGoOfParts(this);
		}
		return false;
	}

	/** @return how many held parts answered true */
	private int askHeldParts(PartCall call) {
		int yes = 0;
		for (RedLockMasters.Answer<Boolean> answer : ask((part) -> !part.isLost() && call.apply(part))) {
			if (answer.is(Boolean.TRUE)) {
				yes++;
			}
		}
		return yes;
	}

	/** Puts the call to every part at once, each on its master's thread. */
	private List<RedLockMasters.Answer<Boolean>> ask(PartCall call) {
		return this.engine.masters().askAll(this.parts.size(), (index) -> call.apply(this.parts.get(index)));
	}

	HeldLockView view(long nowNanos) {
		return new HeldLockView(this.name, this.key, this.token, this.holder,
				Duration.ofNanos(nowNanos - this.acquiredAtNanos), Duration.ofNanos(leaseDeadlineNanos() - nowNanos));
	}

	@Override
	public String toString() {
		return "RedLock '" + this.name + "' key '" + DisplayedKey.of(this.key) + "' token " + this.token;
	}

	/** A call on one part. */
	@FunctionalInterface
	private interface PartCall {

		boolean apply(LockHandle part);

	}

}
