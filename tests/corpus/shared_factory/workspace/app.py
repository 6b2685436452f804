import sys


def main():
    return 0


def serve():
    return 1


if __name__ == "__main__":
    sys.exit(main())
