package io.github.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import org.redisson.client.RedisPubSubConnection;

/**
 * One pub/sub connection and what is to be done on it, in the order it was asked for. Each step runs after the one
 * before: a channel unsubscribed and subscribed again by the next waiter while the connection is still opening must
 * reach the server in that order, or the server could end up unsubscribed under a subscription that counts as
 * confirmed. A future's own dependents run in no promised order: a plain {@code CompletableFuture} runs the last
 * first; Redisson's connection future happened to run them in order, which is no promise either.
 */
final class PubSubSteps {

	final CompletableFuture<RedisPubSubConnection> opening;

	/**
	 * Guarded by whoever asks for steps (one master's channels): completes once every step asked for so far has
	 * run.
	 */
	private CompletableFuture<Void> lastStep;

	PubSubSteps(CompletableFuture<RedisPubSubConnection> opening) {
		this.opening = opening;
		this.lastStep = opening.handle((opened, failure) -> null);
	}

	/** Runs the step on the open connection, after the steps asked for before; nothing if it fails to open. */
	void then(Consumer<RedisPubSubConnection> step) {
		whenOpened((opened, failure) -> {
			if (failure == null) {
				step.accept(opened);
			}
		});
	}

	/**
	 * Runs the step once the connection opened or failed to, after the steps asked for before. A step that throws
	 * stops none of the others: its failure stays in the future nobody reads, as with any dependent.
	 */
	void whenOpened(BiConsumer<RedisPubSubConnection, Throwable> step) {
		// The connection is done by then, so the step runs at once, on the thread running the chain.
		this.lastStep = this.lastStep.thenRun(() -> this.opening.whenComplete(step));
	}

}
