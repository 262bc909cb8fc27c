// Delete documents from a Xapian database by docid, as an application's
// indexer does when pages go away (tests/compact.sh: the oldest first).
//   xapian_delete DB DOCID...
#include <xapian.h>

#include <cstdlib>
#include <iostream>

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::cerr << "usage: xapian_delete DB DOCID...\n";
		return 2;
	}
	try {
		Xapian::WritableDatabase db(argv[1], Xapian::DB_OPEN);
		for (int i = 2; i < argc; i++)
			db.delete_document(Xapian::docid(std::strtoul(argv[i], nullptr, 10)));
		db.commit();
	} catch (const Xapian::Error &e) {
		std::cerr << "xapian_delete: " << argv[1] << ": " << e.get_description() << "\n";
		return 1;
	}
	return 0;
}
