package io.github.distlock.torture.check;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.jute.Record;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.TxnLog;
import org.apache.zookeeper.txn.CloseSessionTxn;
import org.apache.zookeeper.txn.CreateContainerTxn;
import org.apache.zookeeper.txn.CreateSessionTxn;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.DeleteTxn;
import org.apache.zookeeper.txn.ErrorTxn;
import org.apache.zookeeper.txn.TxnHeader;

/**
 * Prints the transaction log a ZooKeeper run left in its {@code zookeeper-data}, one line per transaction: its zxid
 * (the fencing token of a lock node it created), the session, and what it did. With it a loss report can be laid next
 * to what the server really did: which session created and deleted a lock node, and when sessions were closed.
 * <p>
 * {@code java -cp distlock-torture/target/distlock-torture.jar io.github.distlock.torture.check.ZooKeeperTransactions
 * <run directory> [<server>]}: a run on an ensemble keeps one data directory per server ({@code zookeeper-data-N});
 * name the server N whose log to print (each has every committed transaction but those of the time it was down).
 */
public final class ZooKeeperTransactions {

	private ZooKeeperTransactions() {
	}

	public static void main(String[] args) throws IOException {
		if (args.length != 1 && args.length != 2) {
			System.err.println("Usage: ZooKeeperTransactions <run directory> [<server of an ensemble>]");
			System.exit(2);
		}
		String data = (args.length == 2) ? "zookeeper-data-" + args[1] : "zookeeper-data";
		Path logs = Path.of(args[0], data, "version-2");
		if (!Files.isDirectory(logs)) {
			System.err.println("No ZooKeeper data in " + args[0]);
			System.exit(2);
		}
		TxnLog.TxnIterator transactions = new FileTxnLog(logs.toFile()).read(0);
		try {
			while (transactions.getHeader() != null) {
				System.out.println(describe(transactions.getHeader(), transactions.getTxn()));
				if (!transactions.next()) {
					break;
				}
			}
		}
		finally {
			transactions.close();
		}
	}

	static String describe(TxnHeader header, Record transaction) {
		String what;
		if (transaction instanceof CreateTxn create) {
			what = (create.getEphemeral() ? "create-ephemeral " : "create ") + create.getPath();
		}
		else if (transaction instanceof CreateContainerTxn create) {
			what = "create-container " + create.getPath();
		}
		else if (transaction instanceof DeleteTxn delete) {
			what = "delete " + delete.getPath();
		}
		else if (transaction instanceof CreateSessionTxn session) {
			what = "create-session timeout=" + session.getTimeOut();
		}
		else if (transaction instanceof CloseSessionTxn close) {
			// The session's end, by its client or by expiry: the server deletes these with it.
			what = "close-session ephemerals=" + String.join(",", close.getPaths2Delete());
		}
		else if (transaction instanceof ErrorTxn error) {
			// A request that failed after it was logged, such as a delete of a node already gone (-101, NONODE).
			what = "error " + error.getErr();
		}
		else {
			what = "type " + header.getType() + " " + String.valueOf(transaction).replace('\n', ' ');
		}
		return "zxid=" + header.getZxid() + " session=0x" + Long.toHexString(header.getClientId()) + " cxid="
				+ header.getCxid() + " time=" + header.getTime() + " " + what;
	}

}
