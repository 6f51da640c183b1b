package io.github.distlock.sample.demo.processes;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A lock holder frozen past its lease, as a long GC pause or a suspended VM freezes a process: one shop is stopped
 * with SIGSTOP in the middle of a purchase, inside its lock; the other shop gets the lock once the lease has run
 * out and sells; the frozen shop is resumed with SIGCONT and goes on with its purchase, and its late write, under
 * the fencing token of a lock it no longer holds, is refused.
 * <p>
 * To freeze the purchase at a known point, the product table is locked for a moment: the purchase takes its
 * distributed lock, then waits in the database on its first read, before any write. That wait is what the demo
 * watches for before it sends SIGSTOP, and it ends, while the shop is frozen, before the other shop buys.
 */
final class FrozenHolderScenario {

	static final String NAME = "holder frozen past its lease";

	private static final Duration WAITER_TIMEOUT = Duration.ofSeconds(30);

	private final DemoDatabase database;

	private final ShopHttp http;

	private final String sku;

	private final int stock;

	private final String path;

	private final Duration lease;

	private final Duration requestTimeout;

	private final PrintStream out;

	/**
	 * @param database the shops' database
	 * @param http the client
	 * @param sku the product
	 * @param stock the stock it starts with
	 * @param path the locked purchase's path
	 * @param lease the shops' lease on the product's lock
	 * @param requestTimeout how long a purchase may take to be answered, the frozen one included
	 * @param out where to tell what happens
	 */
	FrozenHolderScenario(DemoDatabase database, ShopHttp http, String sku, int stock, String path, Duration lease,
			Duration requestTimeout, PrintStream out) {
		this.database = database;
		this.http = http;
		this.sku = sku;
		this.stock = stock;
		this.path = path;
		this.lease = lease;
		this.requestTimeout = requestTimeout;
		this.out = out;
	}

	/**
	 * @param holder the shop to freeze
	 * @param other the shop that takes over
	 */
	ProcessScenarioResult run(ShopProcess holder, ShopProcess other) {
		this.database.restock(this.sku, this.stock);
		this.out.printf("%s: %s buys while the product table is locked, so its purchase stops inside its lock%n",
				NAME, holder.name());
		CompletableFuture<ShopHttp.Reply> late;
		try (ProductTableLock table = this.database.lockProductTable()) {
			late = this.http.postAsync(holder.uri(this.path), this.requestTimeout);
			awaitWaiter(table, late, holder);
			holder.freeze();
		}
		long frozenAt = System.nanoTime();
		this.out.printf("  %s holds the lock on '%s' and waits on its first read: SIGSTOP (pid %d), table unlocked%n",
				holder.name(), this.sku, holder.pid());
		ShopHttp.Reply takeover = this.http.post(other.uri(this.path), this.requestTimeout);
		Duration frozen = Duration.ofNanos(System.nanoTime() - frozenAt);
		// The holder's lease runs from its last renewal before the freeze, so the other shop may get in a little
		// sooner than one lease into the freeze; it cannot get in before the lease has run out.
		this.out.printf("  %s, buying meanwhile, answered %.1f s into %s's freeze (lease %d ms): %s%n", other.name(),
				frozen.toMillis() / 1000.0, holder.name(), this.lease.toMillis(), takeover);
		holder.thaw();
		ShopHttp.Reply refused = await(late, holder);
		this.out.printf("  SIGCONT %s: its purchase went on and wrote with its old token: %s (the product was last "
				+ "written with %d)%n", holder.name(), refused, this.database.product(this.sku).lastToken());
		List<ShopHttp.Reply> replies = List.of(takeover, refused);
		HttpBuyers.Tally tally = replies.stream().map(HttpBuyers.Tally::of).reduce(HttpBuyers.Tally.NONE,
				HttpBuyers.Tally::plus);
		return new ProcessScenarioResult(NAME, this.stock, this.database.orders(this.sku),
				this.database.product(this.sku).stock(), tally.staleTokens(), tally.busy(), tally.failed());
	}

	/** Waits until the holder's purchase waits on the table, which it does only once it holds its lock. */
	private void awaitWaiter(ProductTableLock table, CompletableFuture<ShopHttp.Reply> purchase, ShopProcess holder) {
		long deadline = System.nanoTime() + WAITER_TIMEOUT.toNanos();
		while (!table.hasWaiters()) {
			if (purchase.isDone()) {
				throw new IllegalStateException(holder.name() + " answered before it reached the product table: "
						+ purchase.join());
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(holder.name() + "'s purchase did not reach the product table within "
						+ WAITER_TIMEOUT.toSeconds() + " s; the end of its log:\n" + holder.logTail());
			}
			// Polling: the wait shows only in pg_locks. A purchase that waits stays there, so nothing is missed.
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
	}

	private ShopHttp.Reply await(CompletableFuture<ShopHttp.Reply> reply, ShopProcess holder) {
		try {
			return reply.get(this.requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(holder.name() + "'s late purchase got no answer: " + ex.getCause(),
					ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException(holder.name() + "'s late purchase was not answered within "
					+ this.requestTimeout, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
