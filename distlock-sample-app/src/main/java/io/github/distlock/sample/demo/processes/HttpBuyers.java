package io.github.distlock.sample.demo.processes;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The load generator: concurrent buyers sending purchases over HTTP from outside the shops, attempt after attempt
 * until all are made, each attempt to the next shop in turn; and what the shops answered, counted.
 */
final class HttpBuyers {

	private final ShopHttp http;

	private final int buyers;

	private final int attempts;

	private final Duration requestTimeout;

	private final Duration timeout;

	/**
	 * @param http the client
	 * @param buyers buyers at once
	 * @param attempts purchases in all
	 * @param requestTimeout how long one purchase may take to be answered
	 * @param timeout how long all of them may take
	 */
	HttpBuyers(ShopHttp http, int buyers, int attempts, Duration requestTimeout, Duration timeout) {
		this.http = http;
		this.buyers = buyers;
		this.attempts = attempts;
		this.requestTimeout = requestTimeout;
		this.timeout = timeout;
	}

	/**
	 * Lets the buyers loose.
	 * @param shops the shops, which take the attempts in turn
	 * @param path the purchase's path on every shop
	 */
	Tally buy(List<ShopProcess> shops, String path) {
		ExecutorService pool = Executors.newFixedThreadPool(this.buyers, buyerThreads());
		try {
			// Every buyer waits at the gate, so that the first wave really arrives at once.
			CountDownLatch gate = new CountDownLatch(1);
			AtomicInteger next = new AtomicInteger();
			List<Future<Tally>> buyers = new ArrayList<>();
			for (int i = 0; i < this.buyers; i++) {
				buyers.add(pool.submit(() -> {
					gate.await();
					Tally tally = Tally.NONE;
					for (int attempt = next.getAndIncrement(); attempt < this.attempts; attempt = next
						.getAndIncrement()) {
						tally = tally.plus(attempt(shops.get(attempt % shops.size()), path));
					}
					return tally;
				}));
			}
			gate.countDown();
			return collect(buyers);
		}
		finally {
			pool.shutdownNow();
		}
	}

	private Tally attempt(ShopProcess shop, String path) {
		try {
			return Tally.of(this.http.post(shop.uri(path), this.requestTimeout));
		}
		catch (UncheckedIOException ex) {
			return Tally.FAILED;
		}
	}

	private Tally collect(List<Future<Tally>> buyers) {
		long deadline = System.nanoTime() + this.timeout.toNanos();
		Tally total = Tally.NONE;
		try {
			for (Future<Tally> buyer : buyers) {
				total = total.plus(buyer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
			}
			return total;
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("The buyers did not finish within " + this.timeout, ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("A buyer failed outside its purchases: " + ex.getCause(), ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the buyers", ex);
		}
	}

	private static ThreadFactory buyerThreads() {
		AtomicInteger number = new AtomicInteger();
		return (task) -> {
			Thread thread = new Thread(task, "http-buyer-" + number.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * What purchases were answered.
	 *
	 * @param sold 201
	 * @param soldOut 409 SOLD_OUT
	 * @param staleTokens 409 STALE_TOKEN: writes refused by the fencing token
	 * @param busy 503: the lock stayed busy for the whole wait
	 * @param failed anything else, or no answer
	 */
	record Tally(int sold, int soldOut, int staleTokens, int busy, int failed) {

		static final Tally NONE = new Tally(0, 0, 0, 0, 0);

		static final Tally FAILED = new Tally(0, 0, 0, 0, 1);

		static Tally of(ShopHttp.Reply reply) {
			if (reply.status() == 201) {
				return new Tally(1, 0, 0, 0, 0);
			}
			if (reply.staleToken()) {
				return new Tally(0, 0, 1, 0, 0);
			}
			if (reply.status() == 409) {
				return new Tally(0, 1, 0, 0, 0);
			}
			return (reply.status() == 503) ? new Tally(0, 0, 0, 1, 0) : FAILED;
		}

		Tally plus(Tally other) {
			return new Tally(this.sold + other.sold, this.soldOut + other.soldOut,
					this.staleTokens + other.staleTokens, this.busy + other.busy, this.failed + other.failed);
		}

		@Override
		public String toString() {
			return this.sold + " sold, " + this.soldOut + " sold out, " + this.staleTokens + " stale token, "
					+ this.busy + " lock busy (503), " + this.failed + " failed";
		}

	}

}
