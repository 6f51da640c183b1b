package io.github.distlock.sample.demo;

import java.time.Duration;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.github.distlock.sample.shop.Orders;
import io.github.distlock.sample.shop.Product;
import io.github.distlock.sample.shop.Products;
import io.github.distlock.sample.shop.Purchase;

/**
 * How stock is often sold before anyone thinks of concurrency: read the stock, check it, write it back. Only the
 * oversell demo calls it, to show what {@link io.github.distlock.sample.shop.StockService} prevents; it is not
 * reachable over HTTP.
 */
@Service
public class NaiveStockService {

	private final JdbcTemplate jdbc;

	private final Products products;

	private final Orders orders;

	private final Duration pause;

	public NaiveStockService(JdbcTemplate jdbc, Products products, Orders orders, DemoSettings settings) {
		this.jdbc = jdbc;
		this.products = products;
		this.orders = orders;
		this.pause = settings.racyPause();
	}

	/** Buys one item with a read-check-write and no lock, so concurrent buyers all see the same stock. */
	@Transactional
	public Purchase buy(String sku) {
		long started = System.nanoTime();
		Product product = this.products.get(sku);
		if (product.stock() <= 0) {
			return Purchase.soldOut(sku, 0, started);
		}
		// Stands for the work a real service does between its check and its write (pricing, fraud checks, a call
		// to another service): it widens the race window so that the demo breaks on every run, not only sometimes.
		pause();
		this.jdbc.update("UPDATE product SET stock = ? WHERE sku = ?", product.stock() - 1, sku);
		long orderId = this.orders.create(sku, 0);
		return Purchase.sold(sku, orderId, product.stock() - 1, 0, started);
	}

	private void pause() {
		try {
			Thread.sleep(this.pause.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during a purchase", ex);
		}
	}

}
