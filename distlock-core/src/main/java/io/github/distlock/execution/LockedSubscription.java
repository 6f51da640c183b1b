package io.github.distlock.execution;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostException;
import io.github.distlock.LockMode;
import io.github.distlock.LockReentryException;
import io.github.distlock.LockUpgradeException;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.HeldLocks.HeldLock;
import io.github.distlock.execution.LockExecution.Work;

/**
 * What one subscription to a locked reactive method does: claims the lock (entering the one the pipeline or the
 * calling thread already holds, else acquiring it), invokes the method inside it, and lets go of the claim when the
 * method's publisher completes, fails or is cancelled, before the subscriber sees the end.
 * <p>
 * The engines' calls block, so acquiring (which may wait up to {@code waitTime}) and releasing run on distlock's own
 * schedulers ({@link LockSchedulers}), never on the subscribing thread, which may be a Netty event loop. The
 * subscriber therefore receives the signals that follow those steps on their threads.
 */
public final class LockedSubscription {

	private final LockExecution execution;

	private final LockRequest request;

	private final OnLost onLost;

	/** The method, when it refuses to re-enter its lock; null when it re-enters. */
	private final @Nullable String nonReentrantMethod;

	private final Work method;

	/** The lock the subscribing thread held when the method was called, if any. */
	private final @Nullable HeldLock enclosing;

	/** What the subscriber receives when the lock is not acquired: the failure, or a mark for a recovery to read. */
	private final Function<LockAcquisitionException, Throwable> notAcquired;

	/**
	 * Made while the caller runs, so that a subscription made inside the caller's lock enters it.
	 * @param nonReentrantMethod the method that refuses to re-enter its lock (for the refusal's message), or null
	 * when it re-enters
	 * @param method the work, able to run once per subscription
	 * @param notAcquired what a subscriber receives in place of a failed acquisition
	 */
	public LockedSubscription(LockExecution execution, LockRequest request, OnLost onLost,
			@Nullable String nonReentrantMethod, Work method,
			Function<LockAcquisitionException, Throwable> notAcquired) {
		this.execution = execution;
		this.request = request;
		this.onLost = onLost;
		this.nonReentrantMethod = nonReentrantMethod;
		this.method = method;
		this.enclosing = execution.heldByCurrentThread(request);
		this.notAcquired = notAcquired;
	}

	/**
	 * A subscription to a {@code Mono}: its value, like its completion, reaches the subscriber only after the claim
	 * has been let go, so a subscriber that sees the value knows the lock is free (unless an enclosing holder keeps
	 * it).
	 */
	public Mono<Object> mono(ContextView context) {
		return claim(context).flatMap((claim) -> {
			if (!claim.takeUp()) {
				return Mono.empty();
			}
			Mono<Object> work = Mono.defer(() -> Mono.from(invokeInside(claim)))
				.contextWrite((inner) -> CarriedLocks.with(inner, claim.held));
			if (this.onLost == OnLost.INTERRUPT) {
				work = work.takeUntilOther(lossOf(claim));
			}
			return work.map(Optional::of)
				.defaultIfEmpty(Optional.empty())
				.onErrorResume((failure) -> claim.end().then(Mono.error(() -> withLoss(failure, claim))))
				.flatMap((value) -> claim.end().then(Mono.defer(() -> ifKept(claim, Mono.justOrEmpty(value)))))
				.doOnCancel(claim::endLater);
		});
	}

	/** A subscription to a {@code Flux}: its elements pass at once, its end after the claim has been let go. */
	public Flux<Object> flux(ContextView context) {
		return claim(context).flatMapMany((claim) -> {
			if (!claim.takeUp()) {
				return Flux.empty();
			}
			Flux<Object> work = Flux.defer(() -> Flux.from(invokeInside(claim)))
				.contextWrite((inner) -> CarriedLocks.with(inner, claim.held));
			if (this.onLost == OnLost.INTERRUPT) {
				work = work.takeUntilOther(lossOf(claim));
			}
			return work.onErrorResume((failure) -> claim.end().then(Mono.error(() -> withLoss(failure, claim))))
				.concatWith(Mono.defer(() -> claim.end().then(Mono.defer(() -> ifKept(claim, Mono.empty())))))
				.doOnCancel(claim::endLater);
		});
	}

	/**
	 * The claim this subscription holds the lock by: on the lock the pipeline or the calling thread holds, if it is
	 * still held, else on a new acquisition.
	 */
	private Mono<Claim> claim(ContextView context) {
		HeldLock outer = CarriedLocks.find(context, this.execution, HeldLocks.identity(this.request),
				this.request.key());
		if (outer == null) {
			outer = this.enclosing;
		}
		if (outer != null && outer.tryClaim()) {
			Claim claim = new Claim(this.execution, outer);
			if (outer.handle.mode() == LockMode.READ && this.request.mode() == LockMode.WRITE) {
				claim.endNow();
				return Mono.error(new LockUpgradeException(this.request.name(), this.request.key(),
						(this.nonReentrantMethod != null) ? this.nonReentrantMethod : "the nested call"));
			}
			if (this.nonReentrantMethod != null) {
				claim.endNow();
				return Mono.error(new LockReentryException(this.request.name(), this.request.key(),
						this.nonReentrantMethod, (outer == this.enclosing) ? "this thread" : "this reactive pipeline"));
			}
			if (outer.handle.isLost() && this.onLost != OnLost.IGNORE) {
				claim.endNow();
				return Mono.error(LockExecution.lostException(outer.handle));
			}
			return Mono.just(claim);
		}
		return acquisition();
	}

	/**
	 * Acquires the lock on a bounded elastic thread. Cancelled while it waits, the wait is interrupted; a lock
	 * acquired all the same, or acquired just as the subscriber cancelled and never taken up by the work, is
	 * released.
	 */
	private Mono<Claim> acquisition() {
		return Mono.create((sink) -> {
			AtomicBoolean cancelled = new AtomicBoolean();
			AtomicReference<Claim> acquired = new AtomicReference<>();
			Disposable task = LockSchedulers.ACQUIRE.schedule(() -> {
				Claim claim;
				try {
					claim = new Claim(this.execution, this.execution.acquireDetached(this.request, this.onLost));
				}
				catch (LockAcquisitionException ex) {
					if (!cancelled.get()) {
						sink.error(this.notAcquired.apply(ex));
					}
					return;
				}
				catch (RuntimeException ex) {
					if (!cancelled.get()) {
						sink.error(ex);
					}
					return;
				}
				// Published before cancellation is read, as the canceller sets its flag before it reads this: one
				// of the two sees the other, so a lock the work never takes up is always abandoned.
				acquired.set(claim);
				if (cancelled.get()) {
					claim.abandon();
				}
				else {
					sink.success(claim);
				}
			});
			sink.onCancel(() -> {
				cancelled.set(true);
				task.dispose();
				Claim claim = acquired.get();
				if (claim != null) {
					claim.abandon();
				}
			});
		});
	}

	/** Invokes the method on this thread inside the lock, so that its assembly sees the lock as a call would. */
	@SuppressWarnings("unchecked")
	private Publisher<Object> invokeInside(Claim claim) {
		try {
			Object result = this.execution.runInside(claim.held, this.method);
			return (result != null) ? (Publisher<Object>) result : Mono.empty();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	/** Emits once the lock is found lost, to cut the work short under {@link OnLost#INTERRUPT}. */
	private static Mono<Boolean> lossOf(Claim claim) {
		return Mono.create((sink) -> claim.held.handle.whenLost(() -> sink.success(Boolean.TRUE)));
	}

	/** The outcome the subscriber gets when the work ended normally: it, or the loss of the lock. */
	private <T> Mono<T> ifKept(Claim claim, Mono<T> outcome) {
		if (claim.held.handle.isLost() && this.onLost != OnLost.IGNORE) {
			return Mono.error(LockExecution.lostException(claim.held.handle));
		}
		return outcome;
	}

	/** The work's own failure, carrying the loss of the lock as suppressed when there was one. */
	private Throwable withLoss(Throwable failure, Claim claim) {
		if (claim.held.handle.isLost() && this.onLost != OnLost.IGNORE && !(failure instanceof LockLostException)) {
			failure.addSuppressed(LockExecution.lostException(claim.held.handle));
		}
		return failure;
	}

	/** One subscription's claim on a lock, let go of exactly once, however the subscription ends. */
	static final class Claim {

		private static final int OFFERED = 0;

		private static final int TAKEN_UP = 1;

		private static final int ABANDONED = 2;

		private final LockExecution execution;

		final HeldLock held;

		/** Whether the work has taken the claim up, or a cancelled subscription abandoned it first. */
		private final AtomicInteger handOver = new AtomicInteger(OFFERED);

		private final AtomicBoolean ended = new AtomicBoolean();

		Claim(LockExecution execution, HeldLock held) {
			this.execution = execution;
			this.held = held;
		}

		/** Takes the claim up for the work, which then lets go of it; false once abandoned. */
		boolean takeUp() {
			return this.handOver.compareAndSet(OFFERED, TAKEN_UP);
		}

		/** Lets go of the claim for a subscription cancelled before its work took it up. */
		void abandon() {
			if (this.handOver.compareAndSet(OFFERED, ABANDONED)) {
				endLater();
			}
		}

		/** Lets go of the claim off the subscriber's thread; completes once done (the release, if it was the last). */
		Mono<Void> end() {
			return Mono.<Void>fromRunnable(this::endNow).subscribeOn(LockSchedulers.RELEASE);
		}

		/** Lets go of the claim on a release thread, without waiting: for cancellations. */
		void endLater() {
			if (!this.ended.get()) {
				LockSchedulers.RELEASE.schedule(this::endNow);
			}
		}

		void endNow() {
			if (this.ended.compareAndSet(false, true)) {
				this.execution.letGo(this.held);
			}
		}

	}

}
