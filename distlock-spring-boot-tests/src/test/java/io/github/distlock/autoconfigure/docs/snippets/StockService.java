package io.github.distlock.autoconfigure.docs.snippets;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;

/** The safety page: a write fenced by the lock's token, refused once a newer holder wrote. */
@Service
class StockService {

	private final JdbcTemplate jdbc;

	StockService(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@DistributedLock(key = "#sku")
	@Transactional
	public void sell(String sku) {
		long token = LockContext.current().token();
		int rows = jdbc.update("UPDATE stock SET qty = qty - 1, last_token = ? WHERE sku = ? AND last_token < ?",
				token, sku, token);
		if (rows == 0) throw new IllegalStateException("a newer lock holder already wrote " + sku);
	}

}
