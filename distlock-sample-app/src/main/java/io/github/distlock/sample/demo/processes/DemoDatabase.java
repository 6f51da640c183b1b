package io.github.distlock.sample.demo.processes;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

import javax.sql.DataSource;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import io.github.distlock.sample.shop.Orders;
import io.github.distlock.sample.shop.Product;
import io.github.distlock.sample.shop.Products;

/**
 * The demo's own database on the PostgreSQL server, which both shops use: created for one run with the shop's
 * schema and products (the same {@code schema.sql} and {@code data.sql} the shop loads into H2 on its own), and
 * dropped when the run ends. Between scenarios the demo restocks it and reads what was sold through the shop's own
 * repositories.
 */
final class DemoDatabase implements AutoCloseable {

	private final PostgresServer server;

	private final String name;

	private final DataSource dataSource;

	private final Products products;

	private final Orders orders;

	private DemoDatabase(PostgresServer server, String name) {
		this.server = server;
		this.name = name;
		this.dataSource = server.dataSource(name);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		this.products = new Products(jdbc);
		this.orders = new Orders(jdbc);
	}

	/** Creates a database with a name of its own, and the shop's tables and products in it. */
	static DemoDatabase create(PostgresServer server) {
		byte[] random = new byte[6];
		ThreadLocalRandom.current().nextBytes(random);
		String name = "distlock_demo_" + HexFormat.of().formatHex(random);
		server.execute("CREATE DATABASE " + name);
		DemoDatabase database = new DemoDatabase(server, name);
		try {
			new ResourceDatabasePopulator(new ClassPathResource("schema.sql"), new ClassPathResource("data.sql"))
				.execute(database.dataSource);
		}
		catch (RuntimeException ex) {
			database.close();
			throw ex;
		}
		return database;
	}

	String name() {
		return this.name;
	}

	/** The JDBC URL the shops connect to, as {@code server.url(database)}. */
	String url() {
		return this.server.url(this.name);
	}

	String username() {
		return this.server.username();
	}

	String password() {
		return this.server.password();
	}

	/** Puts the product back on sale with the given stock, no orders and no write history. */
	void restock(String sku, int stock) {
		this.orders.deleteBySku(sku);
		this.products.restock(sku, stock);
	}

	/** Orders for the product: what was sold, whatever the shops answered. */
	int orders(String sku) {
		return this.orders.countBySku(sku);
	}

	Product product(String sku) {
		return this.products.get(sku);
	}

	/** Locks the product table against every other session, reads included, until the lock is closed. */
	ProductTableLock lockProductTable() {
		return ProductTableLock.take(this.dataSource);
	}

	/** Drops the database, ending any session still in it. */
	@Override
	public void close() {
		// WITH (FORCE), PostgreSQL 13 and later: a shop that could not be stopped must not keep the database alive.
		this.server.execute("DROP DATABASE IF EXISTS " + this.name + " WITH (FORCE)");
	}

}
