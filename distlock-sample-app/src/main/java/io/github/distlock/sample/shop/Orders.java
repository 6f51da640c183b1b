package io.github.distlock.sample.shop;

import java.sql.PreparedStatement;
import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/** The orders table. */
@Repository
public class Orders {

	private static final RowMapper<Order> ROW = (rs, row) -> new Order(rs.getLong("id"), rs.getString("sku"),
			OrderStatus.valueOf(rs.getString("status")), rs.getLong("token"));

	private final JdbcTemplate jdbc;

	public Orders(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/** Records a new, unpaid order and returns its id. */
	public long create(String sku, long token) {
		KeyHolder key = new GeneratedKeyHolder();
		this.jdbc.update((connection) -> {
			PreparedStatement insert = connection.prepareStatement(
					"INSERT INTO orders (sku, status, token) VALUES (?, ?, ?)", new String[] { "id" });
			insert.setString(1, sku);
			insert.setString(2, OrderStatus.NEW.name());
			insert.setLong(3, token);
			return insert;
		}, key);
		return key.getKeyAs(Long.class);
	}

	public Optional<Order> find(long id) {
		List<Order> found = this.jdbc.query("SELECT id, sku, status, token FROM orders WHERE id = ?", ROW, id);
		return found.stream().findFirst();
	}

	public Order get(long id) {
		return find(id).orElseThrow(() -> new NotFoundException("order", id));
	}

	/**
	 * Marks an unpaid order paid.
	 * @return whether this call paid it (false when it already was)
	 */
	public boolean markPaid(long id) {
		// The status condition keeps a second payment from being recorded even without a lock around it.
		return this.jdbc.update("UPDATE orders SET status = ?, paid_at = CURRENT_TIMESTAMP WHERE id = ? AND status = ?",
				OrderStatus.PAID.name(), id, OrderStatus.NEW.name()) == 1;
	}

	public int countBySku(String sku) {
		Integer count = this.jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE sku = ?", Integer.class, sku);
		return (count != null) ? count : 0;
	}

	public void deleteBySku(String sku) {
		this.jdbc.update("DELETE FROM orders WHERE sku = ?", sku);
	}

}
