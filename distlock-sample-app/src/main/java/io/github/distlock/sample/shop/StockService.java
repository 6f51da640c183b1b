package io.github.distlock.sample.shop;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;

/**
 * Sells items from limited stock, one buyer per product at a time across every instance of the application.
 */
@Service
public class StockService {

	private static final Log logger = LogFactory.getLog(StockService.class);

	private final JdbcTemplate jdbc;

	private final Products products;

	private final Orders orders;

	public StockService(JdbcTemplate jdbc, Products products, Orders orders) {
		this.jdbc = jdbc;
		this.products = products;
		this.orders = orders;
	}

	/**
	 * Buys one item. The lock is taken before the transaction begins and released after it commits, so the next
	 * buyer of the same product always reads the stock this one wrote.
	 * @throws StaleTokenException if the stock write was refused because a later lock holder had written first;
	 * nothing was changed
	 */
	@DistributedLock(name = "stock", key = "#sku", lease = "${sample.shop.lease:10s}",
			waitTime = "${sample.shop.lock-wait:5s}")
	@Transactional
	public Purchase buy(String sku) {
		long started = System.nanoTime();
		long token = LockContext.current().token();
		Product product = this.products.get(sku);
		if (product.stock() <= 0) {
			return Purchase.soldOut(sku, token, started);
		}
		// The lock alone is not enough: a holder that stalls past its lease (a long GC pause, a slow disk) can wake
		// up after another buyer took the lock. The fencing token makes the database refuse that late write.
		int updated = this.jdbc.update(
				"UPDATE product SET stock = stock - 1, last_token = ? WHERE sku = ? AND stock > 0 AND last_token < ?",
				token, sku, token);
		if (updated == 0) {
			return refused(sku, token, started);
		}
		long orderId = this.orders.create(sku, token);
		return Purchase.sold(sku, orderId, product.stock() - 1, token, started);
	}

	private Purchase refused(String sku, long token, long started) {
		Product now = this.products.get(sku);
		if (now.lastToken() >= token) {
			logger.warn("Refused a stock write for '" + sku + "' with stale fencing token " + token
					+ " (the product was last written with " + now.lastToken() + "): this buyer's lock had expired");
			// Thrown, not returned: this holder's lock is gone, so the call ends with the lock's loss attached
			// (LockLostException, suppressed) and the refusal still reaches the caller, whatever the loss policy.
			throw new StaleTokenException(sku, token, now.lastToken(), now.stock());
		}
		return Purchase.soldOut(sku, token, started);
	}

}
