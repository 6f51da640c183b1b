package io.github.distlock.sample.shop;

import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Repository;

/**
 * The product table. Stock changes are not here: how stock may be written is the point of the services that do it.
 */
@Repository
public class Products {

	private static final RowMapper<Product> ROW = (rs, row) -> new Product(rs.getString("sku"), rs.getString("name"),
			rs.getInt("stock"), rs.getLong("last_token"));

	private final JdbcTemplate jdbc;

	public Products(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	public Optional<Product> find(String sku) {
		List<Product> found = this.jdbc.query("SELECT sku, name, stock, last_token FROM product WHERE sku = ?", ROW,
				sku);
		return found.stream().findFirst();
	}

	public Product get(String sku) {
		return find(sku).orElseThrow(() -> new NotFoundException("product", sku));
	}

	/** Puts a product back to the given stock with no write history, as for a new sale. */
	public void restock(String sku, int stock) {
		if (this.jdbc.update("UPDATE product SET stock = ?, last_token = 0 WHERE sku = ?", stock, sku) == 0) {
			throw new NotFoundException("product", sku);
		}
	}

}
