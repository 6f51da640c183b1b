package io.github.distlock;

import java.util.Optional;

import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import io.github.distlock.execution.CarriedLocks;

/**
 * The lock a locked {@code Mono} or {@code Flux} method runs inside, read from the Reactor context of its pipeline:
 * the reactive counterpart of {@link LockContext}, whose thread-bound lookup cannot follow a pipeline from thread to
 * thread. With nested locked publishers it is the innermost one. Needs Reactor on the class path.
 *
 * <pre>{@code
 * @DistributedLock(key = "#sku")
 * public Mono<Void> reserve(String sku) {
 *     return ReactiveLockContext.current()
 *         .flatMap((lock) -> stock.decrement(sku, lock.token()));
 * }
 * }</pre>
 */
public final class ReactiveLockContext {

	private ReactiveLockContext() {
	}

	/** The innermost lock the subscribing pipeline runs inside; empty outside any locked publisher. */
	public static Mono<LockContext> current() {
		return Mono.deferContextual((context) -> Mono.justOrEmpty(find(context)));
	}

	/** The innermost lock a pipeline with this context runs inside, for operators that are handed the context. */
	public static Optional<LockContext> find(ContextView context) {
		return Optional.ofNullable(CarriedLocks.innermostHandle(context)).map(LockContext::of);
	}

}
