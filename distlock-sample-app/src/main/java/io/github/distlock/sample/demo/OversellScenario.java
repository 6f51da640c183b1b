package io.github.distlock.sample.demo;

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

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.sample.shop.Orders;
import io.github.distlock.sample.shop.Products;
import io.github.distlock.sample.shop.Purchase;
import io.github.distlock.sample.shop.StaleTokenException;

/**
 * Many buyers at once, spread over several application instances, on one product with little stock; then counts
 * what the database says was sold.
 */
final class OversellScenario {

	private static final Log logger = LogFactory.getLog(OversellScenario.class);

	private final DemoSettings settings;

	private final Products products;

	private final Orders orders;

	/**
	 * @param settings how many buyers, attempts and items
	 * @param products the product table all instances share
	 * @param orders the order table all instances share
	 */
	OversellScenario(DemoSettings settings, Products products, Orders orders) {
		this.settings = settings;
		this.products = products;
		this.orders = orders;
	}

	/**
	 * Restocks the product, lets the buyers loose and reports the outcome.
	 * @param mode a label for the run
	 * @param locked whether the buyers take the lock, which decides whether lock waits and timeouts mean anything
	 * @param instances one buyer per application instance; attempts go to them in turn
	 */
	ScenarioResult run(String mode, boolean locked, List<Buyer> instances) {
		String sku = this.settings.sku();
		this.orders.deleteBySku(sku);
		this.products.restock(sku, this.settings.stock());
		List<Attempt> attempts = attemptAll(sku, instances);
		long[] waits = attempts.stream().filter(Attempt::waited).mapToLong(Attempt::waitNanos).sorted().toArray();
		return new ScenarioResult(mode, locked, this.settings.stock(), attempts.size(), this.orders.countBySku(sku),
				this.products.get(sku).stock(), count(attempts, Purchase.Outcome.STALE_TOKEN),
				(int) attempts.stream().filter(Attempt::timedOut).count(),
				(int) attempts.stream().filter((attempt) -> attempt.error() != null).count(), percentile(waits, 50),
				percentile(waits, 99));
	}

	private List<Attempt> attemptAll(String sku, List<Buyer> instances) {
		ExecutorService pool = Executors.newFixedThreadPool(this.settings.buyers(), buyerThreads());
		try {
			// Every buyer thread waits at the gate, so that the first wave really arrives at once.
			CountDownLatch gate = new CountDownLatch(1);
			List<Future<Attempt>> futures = new ArrayList<>();
			for (int i = 0; i < this.settings.attempts(); i++) {
				Buyer buyer = instances.get(i % instances.size());
				futures.add(pool.submit(() -> {
					gate.await();
					return attempt(buyer, sku);
				}));
			}
			gate.countDown();
			return collect(futures);
		}
		finally {
			pool.shutdownNow();
		}
	}

	private List<Attempt> collect(List<Future<Attempt>> futures) {
		long deadline = System.nanoTime() + this.settings.timeout().toNanos();
		List<Attempt> attempts = new ArrayList<>(futures.size());
		try {
			for (Future<Attempt> future : futures) {
				attempts.add(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
			}
			return attempts;
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("The buyers did not finish within " + this.settings.timeout(), ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("A buyer failed outside its purchase", ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the buyers", ex);
		}
	}

	private static Attempt attempt(Buyer buyer, String sku) {
		long called = System.nanoTime();
		try {
			Purchase purchase = buyer.buy(sku);
			return new Attempt(purchase.outcome(), purchase.startedNanos() - called, false, null);
		}
		catch (StaleTokenException ex) {
			// Its lock wait is not known; it stays out of the percentiles.
			return new Attempt(Purchase.Outcome.STALE_TOKEN, -1, false, null);
		}
		catch (LockAcquisitionException ex) {
			return new Attempt(null, 0, true, null);
		}
		catch (RuntimeException ex) {
			logger.warn("A purchase failed: " + ex.getMessage());
			return new Attempt(null, 0, false, ex);
		}
	}

	private static int count(List<Attempt> attempts, Purchase.Outcome outcome) {
		return (int) attempts.stream().filter((attempt) -> attempt.outcome() == outcome).count();
	}

	/** Nearest-rank percentile; zero when nothing ran. */
	static Duration percentile(long[] sortedNanos, int percent) {
		if (sortedNanos.length == 0) {
			return Duration.ZERO;
		}
		int rank = (int) Math.ceil(percent / 100.0 * sortedNanos.length);
		return Duration.ofNanos(sortedNanos[Math.max(0, rank - 1)]);
	}

	private static ThreadFactory buyerThreads() {
		AtomicInteger number = new AtomicInteger();
		return (task) -> {
			Thread thread = new Thread(task, "buyer-" + number.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * One purchase attempt.
	 *
	 * @param outcome how the purchase ended, or {@code null} when it did not run
	 * @param waitNanos time from the call until the purchase ran (the lock wait, when locked); negative when unknown
	 * @param timedOut whether the lock was not acquired in time
	 * @param error any other failure
	 */
	private record Attempt(Purchase.Outcome outcome, long waitNanos, boolean timedOut, RuntimeException error) {

		boolean waited() {
			return this.outcome != null && this.waitNanos >= 0;
		}

	}

}
